/**
 * System calls a sandboxed command never needs, whose kernel code has been a way out of
 * namespace sandboxes: kernel keyrings, eBPF, perf events, userfaultfd, io_uring, module and
 * kexec loading, tracing and reading other processes' memory, file handles (the "shocker"
 * escape), mounts and the new mount API, and clock, swap, reboot and accounting controls.
 * Numbers per architecture, from the kernel's `unistd` headers.
 */
export const DENIED_SYSCALLS: Readonly<Record<string, { x64: number; arm64: number }>> =
  Object.freeze({
    ptrace: { x64: 101, arm64: 117 },
    process_vm_readv: { x64: 310, arm64: 270 },
    process_vm_writev: { x64: 311, arm64: 271 },
    pidfd_getfd: { x64: 438, arm64: 438 },
    kexec_load: { x64: 246, arm64: 104 },
    kexec_file_load: { x64: 320, arm64: 294 },
    init_module: { x64: 175, arm64: 105 },
    finit_module: { x64: 313, arm64: 273 },
    delete_module: { x64: 176, arm64: 106 },
    keyctl: { x64: 250, arm64: 219 },
    add_key: { x64: 248, arm64: 217 },
    request_key: { x64: 249, arm64: 218 },
    bpf: { x64: 321, arm64: 280 },
    perf_event_open: { x64: 298, arm64: 241 },
    userfaultfd: { x64: 323, arm64: 282 },
    io_uring_setup: { x64: 425, arm64: 425 },
    io_uring_enter: { x64: 426, arm64: 426 },
    io_uring_register: { x64: 427, arm64: 427 },
    mount: { x64: 165, arm64: 40 },
    umount2: { x64: 166, arm64: 39 },
    pivot_root: { x64: 155, arm64: 41 },
    open_tree: { x64: 428, arm64: 428 },
    move_mount: { x64: 429, arm64: 429 },
    fsopen: { x64: 430, arm64: 430 },
    fsconfig: { x64: 431, arm64: 431 },
    fsmount: { x64: 432, arm64: 432 },
    fspick: { x64: 433, arm64: 433 },
    mount_setattr: { x64: 442, arm64: 442 },
    open_by_handle_at: { x64: 304, arm64: 265 },
    name_to_handle_at: { x64: 303, arm64: 264 },
    swapon: { x64: 167, arm64: 224 },
    swapoff: { x64: 168, arm64: 225 },
    reboot: { x64: 169, arm64: 142 },
    acct: { x64: 163, arm64: 89 },
    settimeofday: { x64: 164, arm64: 170 },
    clock_settime: { x64: 227, arm64: 112 },
    adjtimex: { x64: 159, arm64: 171 },
    clock_adjtime: { x64: 305, arm64: 266 },
    syslog: { x64: 103, arm64: 116 },
    vhangup: { x64: 153, arm64: 58 },
    quotactl: { x64: 179, arm64: 60 },
    lookup_dcookie: { x64: 212, arm64: 18 },
    fanotify_init: { x64: 300, arm64: 262 },
    kcmp: { x64: 312, arm64: 272 },
  })

/**
 * Calls that set a file's mode, with the position of the mode argument (and, for `open`-like
 * calls, of the flags that decide whether there is a mode at all): a mode with the setuid or
 * setgid bit fails with `EPERM`, so no command can leave a file the host would run with the
 * privileges of its owner. `null` where the architecture has no such call.
 */
export const MODE_SYSCALLS: Readonly<
  Record<
    string,
    {
      readonly x64: number | null
      readonly arm64: number | null
      readonly mode: number
      readonly flags?: number
    }
  >
> = Object.freeze({
  chmod: { x64: 90, arm64: null, mode: 1 },
  fchmod: { x64: 91, arm64: 52, mode: 1 },
  fchmodat: { x64: 268, arm64: 53, mode: 2 },
  fchmodat2: { x64: 452, arm64: 452, mode: 2 },
  creat: { x64: 85, arm64: null, mode: 1 },
  open: { x64: 2, arm64: null, mode: 2, flags: 1 },
  openat: { x64: 257, arm64: 56, mode: 3, flags: 2 },
  mknod: { x64: 133, arm64: null, mode: 1 },
  mknodat: { x64: 259, arm64: 33, mode: 2 },
})

/**
 * Calls whose mode sits behind a pointer the filter cannot read (`openat2`'s `struct open_how`):
 * they fail with `ENOSYS`, on which programs fall back to the calls above.
 */
export const UNSUPPORTED_SYSCALLS: Readonly<Record<string, { x64: number; arm64: number }>> =
  Object.freeze({ openat2: { x64: 437, arm64: 437 } })

/** The architectures a filter can be built for: Node's `process.arch` names. */
export type SeccompArch = 'x64' | 'arm64'

// AUDIT_ARCH_X86_64 and AUDIT_ARCH_AARCH64 (linux/audit.h).
const AUDIT_ARCH: Record<SeccompArch, number> = { x64: 0xc000003e, arm64: 0xc00000b7 }
// The x32 ABI's bit in x86-64 system call numbers.
const X32_SYSCALL_BIT = 0x40000000
// Classic BPF opcodes (linux/bpf_common.h) and seccomp return values (linux/seccomp.h).
const LD_W_ABS = 0x20
const JEQ_K = 0x15
const JSET_K = 0x45
const RET_K = 0x06
const RET_ALLOW = 0x7fff0000
const RET_EPERM = 0x00050000 | 1
const RET_ENOSYS = 0x00050000 | 38
// Offsets in struct seccomp_data: the low word of argument i is at ARGS + 8 * i (little endian).
const NR = 0
const ARCH = 4
const ARGS = 16
// S_ISUID | S_ISGID, and O_CREAT | __O_TMPFILE: the flags with which open takes a mode.
const PRIVILEGE_BITS = 0o6000
const CREATES = 0o100 | 0o20000000

type Instruction = [code: number, jt: number, jf: number, k: number]

/** One self-contained block per mode call: a mode with a privilege bit returns EPERM. */
function modeBlocks(arch: SeccompArch): Instruction[] {
  const program: Instruction[] = []
  for (const call of Object.values(MODE_SYSCALLS)) {
    const number = call[arch]
    if (number === null) continue
    const block: Instruction[] = []
    if (call.flags !== undefined)
      block.push([LD_W_ABS, 0, 0, ARGS + 8 * call.flags], [JSET_K, 0, 3, CREATES])
    block.push(
      [LD_W_ABS, 0, 0, ARGS + 8 * call.mode],
      [JSET_K, 0, 1, PRIVILEGE_BITS],
      [RET_K, 0, 0, RET_EPERM],
      [RET_K, 0, 0, RET_ALLOW],
    )
    program.push([JEQ_K, 0, block.length, number], ...block)
  }
  for (const numbers of Object.values(UNSUPPORTED_SYSCALLS))
    program.push([JEQ_K, 0, 1, numbers[arch]], [RET_K, 0, 0, RET_ENOSYS])
  return program
}

/** True when `arch` is one a filter can be built for. */
export function isSeccompArch(arch: string): arch is SeccompArch {
  return Object.hasOwn(AUDIT_ARCH, arch)
}

/**
 * A seccomp program (classic BPF, `struct sock_filter[]` in host byte order) for bubblewrap's
 * `--seccomp`: the calls in {@link DENIED_SYSCALLS} fail with `EPERM`, as does any call from
 * another ABI (32-bit or x32), whose numbers would dodge the list, and a {@link MODE_SYSCALLS}
 * call with a setuid or setgid bit in its mode; {@link UNSUPPORTED_SYSCALLS} fail with
 * `ENOSYS`; everything else is allowed.
 */
export function seccompFilter(arch: SeccompArch): Buffer {
  const denied = Object.values(DENIED_SYSCALLS).map((numbers) => numbers[arch])
  const program: Instruction[] = [
    [LD_W_ABS, 0, 0, ARCH],
    [JEQ_K, 1, 0, AUDIT_ARCH[arch]],
    [RET_K, 0, 0, RET_EPERM],
    [LD_W_ABS, 0, 0, NR],
  ]
  const checks: [number, number][] = arch === 'x64' ? [[JSET_K, X32_SYSCALL_BIT]] : []
  for (const number of denied) checks.push([JEQ_K, number])
  const blocks = modeBlocks(arch)
  // Each check jumps over the mode blocks and the ALLOW return to the final EPERM return.
  for (const [index, [code, k]] of checks.entries())
    program.push([code, checks.length - index + blocks.length, 0, k])
  program.push(...blocks, [RET_K, 0, 0, RET_ALLOW], [RET_K, 0, 0, RET_EPERM])
  const buffer = Buffer.alloc(program.length * 8)
  for (const [index, [code, jt, jf, k]] of program.entries()) {
    buffer.writeUInt16LE(code, index * 8)
    buffer.writeUInt8(jt, index * 8 + 2)
    buffer.writeUInt8(jf, index * 8 + 3)
    buffer.writeUInt32LE(k, index * 8 + 4)
  }
  return buffer
}
