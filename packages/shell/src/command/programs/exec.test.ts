import { beforeAll, describe, expect, it } from 'vitest'
import { commandPolicySchema } from '../../schema/command-policy.js'
import { type CommandChecker, createCommandChecker } from '../create-command-checker.js'
import { EXEC_RULES } from './exec.js'

// For every program with exec rules: a command it must allow, and one it must refuse.
const PAIRS: Readonly<Record<string, readonly [allowed: string, denied: string]>> = {
  sort: ['sort -u names.txt', 'sort --compress-program=id names.txt'],
  split: ['split -l 100 big.txt build/part-', 'split --filter=id big.txt'],
  openssl: ['openssl rand -hex 16', 'openssl req -engine ./lib.so'],
  rpm: ['rpm -qa', 'rpm -ivh build/x.rpm'],
  pdflatex: ['pdflatex doc.tex', 'pdflatex --shell-escape doc.tex'],
  fzf: ['fzf --height 40%', "fzf --bind 'enter:execute(id)'"],
  kubectl: ['kubectl get pods', 'kubectl --kubeconfig build/k.yaml get pods'],
  docker: ['docker ps', 'docker run alpine'],
  restic: ['restic snapshots', 'restic snapshots --password-command id'],
  cpio: ['cpio --version', 'cpio -o --rsh-command id'],
  code: ['code --version', 'code tunnel'],
  'apt-get': ['apt-get --version', 'apt-get install x'],
  busctl: ['busctl list', 'busctl --address=unixexec:path=id'],
  cdist: ['cdist --version', 'cdist shell'],
  'ansible-test': ['ansible-test --version', 'ansible-test shell'],
  certbot: ['certbot certificates', 'certbot renew --deploy-hook id'],
  ctr: ['ctr images ls', 'ctr run alpine x'],
  dhclient: ['dhclient -v eth0', 'dhclient -sf build/x eth0'],
  dnsmasq: ['dnsmasq --test', "dnsmasq --conf-script='id'"],
  dpkg: ['dpkg -l', 'dpkg -i build/x.deb'],
  dvips: ['dvips doc.dvi', 'dvips -R0 doc.dvi'],
  gem: ['gem list', 'gem install x'],
  genie: ['genie --version', "genie -c 'id'"],
  openvpn: ['openvpn --version', 'openvpn --up build/x'],
  pidstat: ['pidstat 1 1', 'pidstat -e id'],
  pip: ['pip list', 'pip install x'],
  pkg: ['pkg info', 'pkg install x'],
  plymouth: ['plymouth --ping', 'plymouth ask-for-password --command=id'],
  scrot: ['scrot build/shot.png', 'scrot -e id'],
  snap: ['snap list', 'snap install x'],
  socket: ['socket -v example.com 80', 'socket -p id example.com 80'],
  task: ['task list', 'task execute id'],
  xdotool: ['xdotool getmouselocation', 'xdotool exec id'],
  'yt-dlp': ['yt-dlp -F https://example.com/v', "yt-dlp --exec 'id' https://example.com/v"],
  yum: ['yum list installed', 'yum localinstall build/x.rpm'],
}

describe('EXEC_RULES', () => {
  const checkers = new Map<string, CommandChecker>()
  beforeAll(async () => {
    for (const program of Object.keys(PAIRS)) {
      checkers.set(
        program,
        await createCommandChecker({
          policy: commandPolicySchema.parse({ allow: [program] }),
          scope: { roots: ['/srv/repo'], readOnly: ['/srv/repo/vendor'], deny: ['/srv/repo/.env'] },
        }),
      )
    }
  }, 60_000)

  it('should have an allowed and a denied example for every program with exec rules', () => {
    expect(Object.keys(EXEC_RULES).sort()).toEqual(Object.keys(PAIRS).sort())
  })

  it('should allow the ordinary use and refuse the flag or subcommand that runs code', () => {
    const wrong = Object.entries(PAIRS).flatMap(([program, [allowed, denied]]) => {
      const checker = checkers.get(program) as CommandChecker
      const problems: string[] = []
      const result = checker.check(allowed)
      if (!result.allowed) problems.push(`refused ${allowed}: ${result.issue.message}`)
      const refused = checker.check(denied)
      if (refused.allowed) problems.push(`allowed ${denied}`)
      else if (
        refused.issue.code !== 'command_inline_code' &&
        refused.issue.code !== 'command_wrapper'
      )
        problems.push(`${denied}: ${refused.issue.code}`)
      return problems
    })
    expect(wrong).toEqual([])
  })
})
