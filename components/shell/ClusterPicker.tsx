"use client";
import { useQueryState } from "nuqs";
import { useClusters } from "@/components/data/queries";
import { clusterParam } from "@/lib/views/cluster-link";

/** Shown when the configuration has more than one cluster; the choice lives in the URL. */
export function ClusterPicker() {
  const q = useClusters();
  const [cluster, setCluster] = useQueryState("cluster");
  const clusters = q.data?.clusters ?? [];
  if (clusters.length < 2) return null;
  // a cluster in the URL that the configuration lacks is shown as such, not as the first one
  const unknown = cluster !== null && !clusters.some((c) => c.name === cluster);
  return (
    <span className="picker">
      <select aria-label="Cluster" value={cluster ?? clusters[0].name} onChange={(e) => void setCluster(clusterParam(e.target.value, clusters))}>
        {unknown ? (
          <option value={cluster} disabled>
            {cluster} (unknown)
          </option>
        ) : null}
        {clusters.map((c) => (
          <option key={c.name} value={c.name}>
            {c.name}
          </option>
        ))}
      </select>
    </span>
  );
}
