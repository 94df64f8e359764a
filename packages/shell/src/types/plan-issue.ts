/** Codes of the problems found in a plan, a policy or a live tool call. */
export type IssueCode =
  // plan shape and graph
  | 'invalid_plan'
  | 'duplicate_step_id'
  | 'undefined_dependency'
  | 'self_dependency'
  | 'cyclic_dependency'
  | 'invalid_reference'
  // tools and arguments
  | 'unknown_tool'
  | 'unknown_argument'
  | 'missing_argument'
  | 'invalid_arguments'
  // paths
  | 'path_outside_workspace'
  | 'path_invalid'
  | 'path_not_allowed'
  // commands
  | 'command_not_allowed'
  | 'command_parse_error'
  | 'command_pipeline'
  | 'command_list'
  | 'command_redirection'
  | 'command_substitution'
  | 'command_expansion'
  | 'command_subshell'
  | 'command_function'
  | 'command_heredoc'
  | 'command_assignment'
  | 'command_dangerous_program'
  | 'command_inline_code'
  | 'command_wrapper'
  | 'command_flag_denied'
  | 'command_subcommand_not_allowed'
  | 'command_invalid'
  | 'command_control_flow'
  | 'command_brace_expansion'
  | 'command_glob'
  | 'command_tilde'
  | 'command_unmodelled_program'
  // budgets
  | 'budget_exceeded'
  | 'budget_exhausted'
  // policy
  | 'invalid_policy'
  | 'policy_example_failed'
  | 'policy_deny_path_tracked'
  // run time
  | 'call_not_in_plan'
  | 'step_not_ready'
  | 'step_already_done'
  | 'step_in_progress'
  | 'arguments_differ'
  | 'repeated_call'
  | 'replan_loop'
  | 'deadline_exceeded'
  | 'step_failed'
  | 'step_skipped'
  | 'step_timeout'
  | 'aborted'
  | 'untrusted_flow'
  | 'tainted_run'
  | 'signature_invalid'
  | 'interrupted_call'
  | 'store_failed'
  // MCP: a task-augmented request, refused unsent
  | 'task_not_guarded'
  // MCP: a tool whose listed definition differs from its pin, or that has none
  | 'tool_definition_changed'
  | 'tool_not_pinned'
  | 'tool_not_listed'
  // MCP: a prompt or a resource the policy does not list
  | 'prompt_not_allowed'
  | 'resource_not_allowed'
  // sandbox
  | 'sandbox_unavailable'
  | 'sandbox_failed'
  // audit
  | 'audit_failed'
  | 'audit_invalid'
  // errors thrown by the API
  | 'invalid_configuration'
  | 'plan_tampered'
  | 'state_corrupt'
  | 'internal_error'

/**
 * One problem, located and explained.
 *
 * `path` is the JSON path of the offending value inside the plan (or the policy, or the
 * live call), e.g. `["steps", 2, "args", "file"]`. `hint` tells a planner model what to do
 * instead.
 */
export interface PlanIssue {
  readonly code: IssueCode
  readonly message: string
  readonly path: readonly (string | number)[]
  readonly stepId?: string
  readonly hint?: string
  /** For `cyclic_dependency`: the step ids of one cycle, first id repeated at the end. */
  readonly cycle?: readonly string[]
  /**
   * For `untrusted_flow`: the hops of one flow from an untrusted output to the argument that
   * refuses it, e.g. `["fetch_page.output", "s3.args.command"]`.
   */
  readonly flow?: readonly string[]
}
