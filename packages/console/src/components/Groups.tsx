import type { Evaluation } from '../api';
import { formatMetric } from '../lib/evaluations';
import { GROUP_METRICS, groupSize } from '../lib/results';
import { TableScroll } from './common';

type Results = NonNullable<Evaluation['results']>[number];

const DIMENSIONS = [
  { key: 'languages', title: 'Per language', column: 'Language' },
  { key: 'tags', title: 'Per tag', column: 'Tag' },
] as const;

/**
 * The main metrics per question language and per tag, each configuration a row of its group; shown
 * only when the set's questions have languages or tags.
 */
export function Groups({ results }: { results: Results[] }) {
  return (
    <>
      {DIMENSIONS.map((d) => {
        const groups = [...new Set(results.flatMap((r) => Object.keys(r[d.key])))].sort();
        if (groups.length === 0) return null;
        return (
          <section key={d.key} aria-labelledby={`groups-${d.key}`}>
            <h3 id={`groups-${d.key}`}>{d.title}</h3>
            <TableScroll label={`Metrics ${d.title.toLowerCase()}`}>
              <table data-testid={`groups-${d.key}`}>
                <thead>
                  <tr>
                    <th scope="col">{d.column}</th>
                    <th scope="col">Configuration</th>
                    <th scope="col">Questions</th>
                    {GROUP_METRICS.map(([name, label]) => (
                      <th key={name} scope="col">
                        {label}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {groups.flatMap((g) =>
                    results.map((r) => {
                      const metrics = r[d.key][g];
                      return (
                        <tr
                          key={`${g}:${r.configuration}`}
                          data-group={g}
                          data-configuration={r.configuration}
                        >
                          <th scope="row">{g}</th>
                          <td>{r.configuration}</td>
                          <td data-testid="group-questions">{metrics ? groupSize(metrics) : 0}</td>
                          {GROUP_METRICS.map(([name]) => {
                            const shown = formatMetric(name, metrics?.[name] ?? null);
                            return (
                              <td key={name} data-metric={name}>
                                {shown.value}
                                {shown.value !== '—' ? (
                                  <div className="muted small">{shown.interval}</div>
                                ) : null}
                              </td>
                            );
                          })}
                        </tr>
                      );
                    }),
                  )}
                </tbody>
              </table>
            </TableScroll>
          </section>
        );
      })}
    </>
  );
}
