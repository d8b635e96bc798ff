// The answer of a form's server action, in place (lib/auth/action.ts): its message as a status, or
// its error as an alert, prefixed with the field it is about.
import type { ActionState } from '@/lib/auth/action-form';

export function FormStatus({ state, block }: { state: ActionState; block?: boolean }) {
  const Tag = block ? 'p' : 'span';
  if (state.ok) {
    return state.message ? (
      <Tag className="badge good" role="status">
        {state.message}
      </Tag>
    ) : null;
  }
  if (state.error) {
    return (
      <Tag className="error" role="alert">
        {state.field ? `${state.field}: ${state.error}` : state.error}
      </Tag>
    );
  }
  return null;
}
