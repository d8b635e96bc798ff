'use client';
// Open dead letters by age since dead-lettered: where the backlog sits relative to the deadline.
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { SERIES_COLORS } from './chart-format';

export function AgeHistogramChart({ data }: { data: { bucket: string; count: number }[] }) {
  return (
    <ResponsiveContainer width="100%" height={240}>
      <BarChart data={data} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="bucket" fontSize={11} />
        <YAxis allowDecimals={false} fontSize={11} width={48} />
        <Tooltip />
        <Bar dataKey="count" name="open" fill={SERIES_COLORS.accent} isAnimationActive={false} />
      </BarChart>
    </ResponsiveContainer>
  );
}
