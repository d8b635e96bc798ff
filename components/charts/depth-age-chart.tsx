'use client';
// Open dead letters and the oldest one's age over time: a backlog that ages without shrinking is
// the SLA breach coming. The age is in seconds and written as every page writes ages.
import { CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatDuration } from '@/lib/duration';
import { SERIES_COLORS, ageTicks, utcTick } from './chart-format';

export function DepthAgeChart({ data, withDate }: { data: { t: string; open: number | null; oldestAgeSeconds: number | null }[]; withDate: boolean }) {
  // Sparse snapshots (a new source, a worker just started) would draw no line: show the points.
  const dot = data.filter((p) => p.open !== null).length < 30 ? { r: 2 } : false;
  const ticks = ageTicks(Math.max(0, ...data.map((p) => p.oldestAgeSeconds ?? 0)));
  return (
    <ResponsiveContainer width="100%" height={240}>
      <ComposedChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="t" tickFormatter={(t: string) => utcTick(t, withDate)} minTickGap={24} fontSize={11} />
        <YAxis yAxisId="open" allowDecimals={false} fontSize={11} width={48} />
        <YAxis
          yAxisId="age"
          orientation="right"
          fontSize={11}
          width={64}
          ticks={ticks}
          domain={[0, ticks[ticks.length - 1]!]}
          tickFormatter={(s: number) => formatDuration(s)}
        />
        <Tooltip
          labelFormatter={(t) => `${utcTick(String(t), true)} UTC`}
          formatter={(value, name) => (name === 'oldest age' && typeof value === 'number' ? formatDuration(value) : value)}
        />
        <Legend />
        <Line yAxisId="open" name="open" dataKey="open" stroke={SERIES_COLORS.accent} dot={dot} isAnimationActive={false} />
        <Line yAxisId="age" name="oldest age" dataKey="oldestAgeSeconds" stroke={SERIES_COLORS.warn} dot={dot} isAnimationActive={false} />
      </ComposedChart>
    </ResponsiveContainer>
  );
}
