// The payload viewer: text, pretty JSON or hex of any bytes, as plain React text (escaped, never
// markup; no dangerouslySetInnerHTML). The model comes from lib/deadletters/payload-view.ts, which
// caps sizes and refuses to pretty-print JSON too deep to handle safely.
import type { PayloadMode, PayloadView } from '@/lib/deadletters/payload-view';
import { HEX_VIEW_BYTES, TEXT_VIEW_BYTES } from '@/lib/deadletters/payload-view';
import styles from '../dead-letters.module.css';

const kib = (n: number) => `${(n / 1024).toLocaleString('en', { maximumFractionDigits: 1 })} KiB`;

export function PayloadViewer({ view, mode, hrefFor }: { view: PayloadView; mode: PayloadMode; hrefFor: (mode: PayloadMode) => string }) {
  const shown: PayloadMode = mode === 'json' && view.json === null ? 'text' : mode;
  const tab = (m: PayloadMode, label: string, enabled = true) =>
    !enabled ? (
      <span className={styles.tabDisabled} title={view.jsonNote ?? 'Not JSON'}>
        {label}
      </span>
    ) : (
      <a className={m === shown ? styles.tabActive : styles.tab} href={hrefFor(m)} aria-current={m === shown ? 'page' : undefined}>
        {label}
      </a>
    );
  return (
    <div data-testid="payload-viewer" data-mode={shown}>
      <div className={styles.tabs}>
        {tab('json', 'Pretty JSON', view.json !== null)}
        {tab('text', 'Text')}
        {tab('hex', 'Hex')}
        <span className="muted">
          {view.size.toLocaleString('en')} bytes{view.utf8 ? '' : ' · not valid UTF-8'}
          {view.bom ? ' · starts with a UTF-8 BOM' : ''}
        </span>
      </div>
      {view.jsonNote && shown === 'text' ? <p className={styles.note}>{view.jsonNote}</p> : null}
      {shown === 'json' ? (
        <pre className={styles.payload} data-testid="payload-json">
          {view.json}
        </pre>
      ) : null}
      {shown === 'text' ? (
        <>
          {!view.utf8 ? <p className={styles.note}>Not valid UTF-8: invalid sequences are shown as �. The hex view and the download are exact.</p> : null}
          <Shown size={view.size} cutAt={view.textTruncated ? TEXT_VIEW_BYTES : null} testId="payload-text">
            {view.text}
          </Shown>
        </>
      ) : null}
      {shown === 'hex' ? (
        <Shown size={view.size} cutAt={view.hexTruncated ? HEX_VIEW_BYTES : null} testId="payload-hex">
          {view.hex}
        </Shown>
      ) : null}
    </div>
  );
}

/** The text or hex view of the payload, with a note when it shows only the first `cutAt` bytes. */
function Shown({ size, cutAt, testId, children }: { size: number; cutAt: number | null; testId: string; children: string }) {
  return (
    <>
      {cutAt !== null ? (
        <p className={styles.note}>
          Showing the first {kib(cutAt)} of {kib(size)}; download for the rest.
        </p>
      ) : null}
      <pre className={styles.payload} data-testid={testId}>
        {size === 0 ? '(empty payload)' : children}
      </pre>
    </>
  );
}
