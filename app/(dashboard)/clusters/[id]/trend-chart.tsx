'use client';
// A cluster's dead letters per hour over the last week.
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { SERIES_COLORS, utcTick } from '@/components/charts/chart-format';

export function TrendChart({ from, counts }: { from: string; counts: number[] }) {
  const start = Date.parse(from);
  const data = counts.map((n, i) => ({ hour: new Date(start + i * 3_600_000).toISOString(), n }));
  return (
    <ResponsiveContainer width="100%" height={200}>
      <BarChart data={data} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="hour" tickFormatter={(v: string) => utcTick(v, true)} minTickGap={48} fontSize={11} />
        <YAxis allowDecimals={false} width={48} fontSize={11} />
        <Tooltip labelFormatter={(t) => `${utcTick(String(t), true)} UTC`} />
        <Bar dataKey="n" name="dead letters" fill={SERIES_COLORS.accent} isAnimationActive={false} />
      </BarChart>
    </ResponsiveContainer>
  );
}
