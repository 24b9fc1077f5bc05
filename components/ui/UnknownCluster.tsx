"use client";
/**
 * The state of a view whose URL names a cluster the configuration does not have (`?cluster=` from an old link, a typo, a
 * cluster removed since): what was asked, and links to the clusters there are, instead of an error with a retry that
 * cannot help. The view stops polling such an answer (pollInterval in components/data/queries.ts).
 */
import { useSearchParams } from "next/navigation";
import { useCluster, useClusters } from "@/components/data/queries";
import { plural } from "@/lib/format";
import { clusterHref } from "@/lib/views/cluster-link";

interface Props {
  /** the cluster the URL asked for */
  name: string;
  /** the configured clusters, the first being the default; undefined while unknown */
  clusters: readonly { name: string }[] | undefined;
  /** the URL's query string: the links keep its other parameters */
  search?: string;
}

export function UnknownCluster({ name, clusters, search = "" }: Props) {
  return (
    <div className="banner warn" role="alert">
      <div>
        <strong>No cluster named “{name}”</strong>
        {clusters === undefined ? (
          "This dashboard’s configuration has no cluster of that name; GET /api/v1/clusters lists those it has."
        ) : (
          <>
            This dashboard’s configuration has {plural(clusters.length, "cluster")}; show this view for:
            <ul>
              {clusters.map((c, i) => (
                <li key={c.name}>
                  <a href={clusterHref(search, c.name, clusters)}>{c.name}</a>
                  {i === 0 ? " (the default)" : null}
                </li>
              ))}
            </ul>
          </>
        )}
      </div>
    </div>
  );
}

/** UnknownCluster for the cluster in the URL, with the configured clusters as the server lists them. */
export function UnknownClusterState() {
  const clusters = useClusters();
  // null outside Next's router (a test's render): no other parameters to keep
  const search = useSearchParams()?.toString() ?? "";
  return <UnknownCluster name={useCluster() ?? ""} clusters={clusters.data?.clusters} search={search} />;
}
