import { itemAt, type PlanIssue } from '@plan/shell/common'
import type { Policy } from '../schema/policy-schema.js'
import {
  decidePolicyCase,
  type PolicyCase,
  type PolicyCaseChecker,
  type PolicyDecision,
} from './decide-policy-case.js'

interface LocatedExample {
  readonly policyCase: PolicyCase
  readonly path: readonly (string | number)[]
  readonly text: string
  /** For a program's example: the program it must run. */
  readonly program?: string
}

/** Every example written in the policy, as cases, with where each one is written. */
export function policyExamples(policy: Policy): LocatedExample[] {
  const examples: LocatedExample[] = []
  const decisions: readonly PolicyDecision[] = ['allow', 'deny']
  for (const [tool, toolPolicy] of Object.entries(policy.tools)) {
    for (const decision of decisions) {
      toolPolicy.examples?.[decision]?.forEach((args, index) => {
        examples.push({
          policyCase: { tool, args, expect: decision },
          path: ['tools', tool, 'examples', decision, index],
          text: `${tool} ${JSON.stringify(args)}`,
        })
      })
    }
  }
  for (const [program, rule] of Object.entries(policy.commands.rules ?? {})) {
    for (const decision of decisions) {
      rule.examples?.[decision]?.forEach((command, index) => {
        examples.push({
          policyCase: { command, expect: decision },
          path: ['commands', 'rules', program, 'examples', decision, index],
          text: JSON.stringify(command),
          program,
        })
      })
    }
  }
  return examples
}

function disagreement(example: LocatedExample, issues: readonly PlanIssue[]): PlanIssue {
  const expected = example.policyCase.expect
  if (expected === 'allow') {
    const first = itemAt(issues, 0)
    return {
      code: 'policy_example_failed',
      message: `The example ${example.text} is listed as allowed, but the policy denies it: ${first.code}: ${first.message}`,
      path: example.path,
      hint: 'Change the rule so that it allows the example, or move the example to `deny`.',
    }
  }
  return {
    code: 'policy_example_failed',
    message: `The example ${example.text} is listed as denied, but the policy allows it.`,
    path: example.path,
    hint: 'Change the rule so that it denies the example, or move the example to `allow`.',
  }
}

/**
 * Decides every example in the policy (`examples.allow` and `examples.deny` of each tool and each
 * program rule): a `policy_example_failed` issue, naming example, decision and issue, for each the
 * policy decides otherwise. An allowed example of a program rule must also run that program.
 */
export function checkPolicyExamples(policy: Policy, checker: PolicyCaseChecker): PlanIssue[] {
  const issues: PlanIssue[] = []
  for (const example of policyExamples(policy)) {
    const result = decidePolicyCase(checker, example.policyCase)
    if (result.decision !== example.policyCase.expect) {
      issues.push(disagreement(example, result.issues))
      continue
    }
    const command = 'command' in example.policyCase ? example.policyCase.command : undefined
    if (example.policyCase.expect !== 'allow' || command === undefined) continue
    const checked = checker.checkCommand(command)
    if (checked.allowed && checked.argv[0] !== example.program) {
      issues.push({
        code: 'policy_example_failed',
        message: `The example ${example.text} does not run ${JSON.stringify(example.program)}, the program of its rule.`,
        path: example.path,
        hint: 'Write the examples of a program rule as commands of that program.',
      })
    }
  }
  return issues
}
