// The known traps of a connector source's broker settings (lib/connectors/traps.ts), each with what
// to change: on the source page, under "test connection" and on the redrive form.
import type { Trap } from '@/lib/connectors/traps';

export function TrapList({ traps, testId = 'connector-trap' }: { traps: readonly Trap[]; testId?: string }) {
  return traps.map((t) => (
    <p
      key={`${t.code}:${t.message}`}
      className={t.severity === 'warning' ? 'badge warn' : 'badge'}
      data-testid={testId}
      data-code={t.code}
      style={{ marginTop: 8, whiteSpace: 'normal' }}
    >
      {t.message} <strong>Change:</strong> {t.fix}
    </p>
  ));
}
