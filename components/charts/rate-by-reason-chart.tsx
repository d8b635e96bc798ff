'use client';
// Dead letters per time bucket, stacked by reason: a wave stands out as one tall stack.
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { REASON_COLORS, utcTick } from './chart-format';

export function RateByReasonChart({ data, withDate }: { data: ({ t: string } & Record<string, number | string>)[]; withDate: boolean }) {
  const reasons = Object.keys(REASON_COLORS).filter((r) => data.some((p) => Number(p[r]) > 0));
  return (
    <ResponsiveContainer width="100%" height={240}>
      <BarChart data={data} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="t" tickFormatter={(t: string) => utcTick(t, withDate)} minTickGap={24} fontSize={11} />
        <YAxis allowDecimals={false} fontSize={11} width={48} />
        <Tooltip labelFormatter={(t) => `${utcTick(String(t), true)} UTC`} />
        <Legend />
        {reasons.map((r) => (
          <Bar key={r} dataKey={r} stackId="reason" fill={REASON_COLORS[r]} isAnimationActive={false} />
        ))}
      </BarChart>
    </ResponsiveContainer>
  );
}
