// /sla — the team lead's home: age deadlines per source
import { pageActor } from '@/lib/auth/guard';
import { listSources } from '@/lib/sources/list-sources';

export default async function SlaPage() {
  const actor = await pageActor('deadletters.read');
  const sources = await listSources(actor);
  return (
    <>
      <h1>SLA board</h1>
      <table>
        <thead>
          <tr>
            <th>Source</th>
            <th>Team</th>
            <th>Age deadline</th>
            <th>Retention</th>
          </tr>
        </thead>
        <tbody>
          {sources.map((s) => (
            <tr key={s.id}>
              <td>{s.name}</td>
              <td>{s.team.name}</td>
              <td>{Math.round(s.ageDeadlineSeconds / 86400)} d</td>
              <td>{Math.round(s.retentionSeconds / 86400)} d</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
