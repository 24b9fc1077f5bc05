/**
 * What discovery found in the cluster's Kubernetes API (`targetAllocators: auto`): one row per Target Allocator with how
 * the dashboard reaches it, then every object that looked like a TA's and was dropped, with why.
 */
import type { DiscoveryView } from "@/lib/api/schemas";
import { ROLE_TITLE } from "@/lib/format";
import styles from "./diagnostics.module.css";

const REACH: Record<DiscoveryView["found"][number]["reach"], string> = {
  direct: "directly",
  "port-forward": "port-forward through the API server",
  "service-proxy": "the API server's service proxy",
};

export function DiscoveryPanel({ d }: { d: DiscoveryView }) {
  return (
    <section className={styles.discovery} aria-labelledby="discovery-title">
      <h2 id="discovery-title" className={styles.discoveryTitle}>
        Discovered Target Allocators
      </h2>
      {d.found.length ? (
        <table className={styles.discoveryTable}>
          <thead>
            <tr>
              <th scope="col" style={{ width: "16%" }}>
                Role
              </th>
              <th scope="col" style={{ width: "30%" }}>
                Target Allocator
              </th>
              <th scope="col" style={{ width: "30%" }}>
                Collectors
              </th>
              <th scope="col">Reached through</th>
            </tr>
          </thead>
          <tbody>
            {d.found.map((f) => (
              <tr key={f.role}>
                <td>{ROLE_TITLE[f.role]}</td>
                <td>
                  <code>{f.configMap}</code>
                  <div className={styles.discoveryNote}>
                    {f.flavor} · {f.strategy}
                    {f.fallbackStrategy ? `, fallback ${f.fallbackStrategy}` : ""} · namespace {f.namespace}
                  </div>
                </td>
                <td>
                  <div className={styles.discoveryNote}>namespace {f.collectors.namespace}</div>
                  <ul className={styles.labels} aria-label="Collector selector">
                    {Object.entries(f.collectors.selector).map(([k, v]) => (
                      <li key={k}>
                        <code>
                          {k}={v}
                        </code>
                      </li>
                    ))}
                  </ul>
                </td>
                <td>
                  {REACH[f.reach]}
                  <div className={styles.discoveryNote}>
                    {f.mtls ? "TLS with a client certificate" : "plain HTTP"} · Service <code>{f.service.split("/").pop()}</code>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className={styles.summary}>No Target Allocator was found{d.at === null ? " yet: the first reading has not succeeded" : ""}.</p>
      )}
      {d.dropped.length || d.problems.length ? (
        <div className={styles.evidence}>
          <ul aria-label="Dropped">
            {d.dropped.map((x) => (
              <li key={x.object}>
                dropped {x.object}: {x.reason}
              </li>
            ))}
            {d.problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}
