// Moved to components/redrive/redrive-href.ts. Kept only because dead-letters/actions.ts (owned by the
// action-client change, issue 18) still imports it from here; delete once it imports @/components.
export { redriveHref } from '@/components/redrive/redrive-href';
