'use client';
// A tiny trend line for table rows (SLA board trend, cluster activity). Reusable anywhere a row
// wants "how has this moved lately": pass the values oldest first; null is a gap.
import { Line, LineChart, YAxis } from 'recharts';
import { SERIES_COLORS } from './chart-format';

export function Sparkline({
  values,
  width = 120,
  height = 28,
  stroke = SERIES_COLORS.accent,
  title,
}: {
  values: (number | null)[];
  width?: number;
  height?: number;
  stroke?: string;
  title?: string;
}) {
  // One point draws no line: say "not enough data yet" rather than show an empty cell.
  if (values.filter((v) => v !== null).length < 2)
    return (
      <span className="muted" title={title}>
        —
      </span>
    );
  const data = values.map((v, i) => ({ i, v }));
  return (
    <span role="img" aria-label={title ?? `trend: ${values.map((v) => v ?? '–').join(', ')}`} title={title} style={{ display: 'inline-block', lineHeight: 0 }}>
      <LineChart width={width} height={height} data={data} margin={{ top: 2, right: 2, bottom: 2, left: 2 }}>
        <YAxis hide domain={[0, 'dataMax']} />
        <Line type="monotone" dataKey="v" stroke={stroke} strokeWidth={1.5} dot={false} isAnimationActive={false} connectNulls={false} />
      </LineChart>
    </span>
  );
}
