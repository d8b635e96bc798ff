'use client';
// Sends and outcomes per second: the rate held (sends flat at the requested rate), and whether
// what went back stays acknowledged or comes back dead. On a healthy redrive sent/s and
// acknowledged/s are the same line: acknowledged is drawn first and wide, sent last (on top),
// narrow and dashed, so both show; the legend draws each line as it is.
import { CartesianGrid, Legend, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { RatePoint } from '@/lib/redrive';
import { SERIES_COLORS } from '@/components/charts/chart-format';

export function RateChart({ points, rate }: { points: RatePoint[]; rate: number }) {
  return (
    <ResponsiveContainer width="100%" height={220}>
      <LineChart data={points} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="t" unit=" s" fontSize={11} minTickGap={24} />
        <YAxis allowDecimals={false} fontSize={11} width={48} />
        <Tooltip labelFormatter={(t) => `${String(t)} s`} />
        <Legend />
        <ReferenceLine
          y={rate}
          stroke={SERIES_COLORS.muted}
          strokeDasharray="4 4"
          label={{ value: `${rate}/s requested`, fontSize: 11, position: 'insideTopRight' }}
        />
        <Line
          name="acknowledged/s"
          dataKey="acknowledged"
          stroke={SERIES_COLORS.ok}
          strokeWidth={4}
          legendType="plainline"
          dot={false}
          isAnimationActive={false}
        />
        <Line name="dead again/s" dataKey="deadAgain" stroke={SERIES_COLORS.bad} strokeWidth={2} legendType="plainline" dot={false} isAnimationActive={false} />
        <Line
          name="sent/s"
          dataKey="sent"
          stroke={SERIES_COLORS.accent}
          strokeWidth={2}
          strokeDasharray="6 4"
          legendType="plainline"
          dot={false}
          isAnimationActive={false}
        />
      </LineChart>
    </ResponsiveContainer>
  );
}
