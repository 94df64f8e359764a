import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  DENIED_SYSCALLS,
  isSeccompArch,
  MODE_SYSCALLS,
  type SeccompArch,
  seccompFilter,
  UNSUPPORTED_SYSCALLS,
} from './seccomp-filter.js'

const AUDIT_ARCH = { x64: 0xc000003e, arm64: 0xc00000b7, i386: 0x40000003, arm: 0x40000028 }
const ALLOW = 0x7fff0000
const EPERM = 0x00050001
const ENOSYS = 0x00050026

/** Runs a classic BPF seccomp program (the opcodes it may use) on one system call. */
function evaluate(program: Buffer, arch: number, nr: number, args: number[] = []): number {
  // seccomp_data: nr, arch, instruction pointer (two words), then six 64-bit arguments.
  const data = [nr, arch, 0, 0, ...[0, 1, 2, 3, 4, 5].flatMap((index) => [args[index] ?? 0, 0])]
  let accumulator = 0
  for (let pc = 0; pc * 8 < program.length; pc += 1) {
    const code = program.readUInt16LE(pc * 8)
    const jt = program.readUInt8(pc * 8 + 2)
    const jf = program.readUInt8(pc * 8 + 3)
    const k = program.readUInt32LE(pc * 8 + 4)
    if (code === 0x20) accumulator = data[k / 4] as number
    else if (code === 0x06) return k
    else if (code === 0x15) pc += accumulator === k ? jt : jf
    else if (code === 0x45) pc += (accumulator & k) !== 0 ? jt : jf
    else throw new Error(`unexpected opcode ${code}`)
  }
  throw new Error('the program fell off its end')
}

/** `__NR_<name>` numbers in a kernel unistd header. */
function headerNumbers(path: string): Map<string, number> {
  const numbers = new Map<string, number>()
  for (const match of readFileSync(path, 'utf8').matchAll(/^#define __NR(?:3264)?_(\w+)\s+(\d+)/gm))
    numbers.set(match[1] as string, Number(match[2]))
  return numbers
}

const HEADERS: Record<SeccompArch, string> = {
  x64: '/usr/include/x86_64-linux-gnu/asm/unistd_64.h',
  arm64: '/usr/include/asm-generic/unistd.h',
}

describe('seccompFilter', () => {
  it.each(['x64', 'arm64'] as const)(
    'should deny every listed call on %s, and allow others',
    (arch) => {
      const program = seccompFilter(arch)
      for (const numbers of Object.values(DENIED_SYSCALLS))
        expect(evaluate(program, AUDIT_ARCH[arch], numbers[arch])).toBe(EPERM)
      const denied = new Set(Object.values(DENIED_SYSCALLS).map((numbers) => numbers[arch]))
      const unsupported = new Set(
        Object.values(UNSUPPORTED_SYSCALLS).map((numbers) => numbers[arch]),
      )
      for (let nr = 0; nr < 512; nr += 1)
        if (!denied.has(nr))
          expect(evaluate(program, AUDIT_ARCH[arch], nr)).toBe(unsupported.has(nr) ? ENOSYS : ALLOW)
    },
  )

  it.each(['x64', 'arm64'] as const)(
    'should refuse a setuid or setgid mode on %s and allow every other mode',
    (arch) => {
      const program = seccompFilter(arch)
      for (const call of Object.values(MODE_SYSCALLS)) {
        const number = call[arch]
        if (number === null) continue
        const withMode = (mode: number, flags = 0o100) => {
          const args: number[] = []
          args[call.mode] = mode
          if (call.flags !== undefined) args[call.flags] = flags
          return evaluate(program, AUDIT_ARCH[arch], number, args)
        }
        for (const mode of [0o4755, 0o2755, 0o6755, 0o4000, 0o2000, 0o104755])
          expect([number, mode, withMode(mode)]).toEqual([number, mode, EPERM])
        for (const mode of [0o755, 0o644, 0o1777, 0o777, 0o100644, 0])
          expect([number, mode, withMode(mode)]).toEqual([number, mode, ALLOW])
        // Without O_CREAT or O_TMPFILE, open ignores its mode argument.
        if (call.flags !== undefined) {
          expect(withMode(0o4755, 0)).toBe(ALLOW)
          expect(withMode(0o4755, 0o20200000)).toBe(EPERM)
        }
      }
    },
  )

  it('should deny every call of another ABI: 32-bit x86, 32-bit ARM, x32', () => {
    expect(evaluate(seccompFilter('x64'), AUDIT_ARCH.i386, 3)).toBe(EPERM)
    expect(evaluate(seccompFilter('x64'), AUDIT_ARCH.arm64, 0)).toBe(EPERM)
    expect(evaluate(seccompFilter('arm64'), AUDIT_ARCH.arm, 3)).toBe(EPERM)
    expect(evaluate(seccompFilter('arm64'), AUDIT_ARCH.x64, 63)).toBe(EPERM)
    // x32 read(2) and keyctl(2): the ABI bit set on x86-64's own arch value.
    expect(evaluate(seccompFilter('x64'), AUDIT_ARCH.x64, 0x40000000)).toBe(EPERM)
    expect(evaluate(seccompFilter('x64'), AUDIT_ARCH.x64, 0x40000000 + 250)).toBe(EPERM)
  })

  it('should know the architectures it has numbers for', () => {
    expect(isSeccompArch('x64')).toBe(true)
    expect(isSeccompArch('arm64')).toBe(true)
    expect(isSeccompArch('ia32')).toBe(false)
    expect(isSeccompArch('constructor')).toBe(false)
  })

  // The kernel headers come with linux-libc-dev, which .ci/run installs.
  it.each(['x64', 'arm64'] as const)('should use the kernel headers’ numbers for %s', (arch) => {
    if (!existsSync(HEADERS[arch]) && process.env.CI !== 'true') return
    const numbers = headerNumbers(HEADERS[arch])
    for (const [name, pair] of Object.entries({ ...DENIED_SYSCALLS, ...UNSUPPORTED_SYSCALLS }))
      expect([name, numbers.get(name)]).toEqual([name, pair[arch]])
    // fchmodat2 (Linux 6.6) is missing from older headers: only a number the header has is compared.
    for (const [name, call] of Object.entries(MODE_SYSCALLS))
      if (numbers.has(name) || call[arch] === null)
        expect([name, numbers.get(name) ?? null]).toEqual([name, call[arch]])
  })
})
