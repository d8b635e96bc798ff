// Redrive rules: standing orders that start ordinary redrive tasks (docs/design.md "Redrive rules").
export {
  createRedriveRule,
  updateRedriveRule,
  deleteRedriveRule,
  listRedriveRules,
  createRuleInput,
  updateRuleInput,
  RULE_KINDS,
  type RuleKind,
  type RedriveRuleView,
  type CreateRuleInput,
  type UpdateRuleInput,
} from './rules';
export { evaluateRedriveRules, RULES_ACTOR, type RulesEvaluation } from './evaluate-rules';
