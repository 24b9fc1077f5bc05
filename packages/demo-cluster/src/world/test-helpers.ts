/** Shared by the world's tests: monitor routing by annotation and the per-node target-node rule, written out independently. */
import type { Labels, MonitorRef, Role } from "@allocation-lens/allocation/model";
import { CLUSTER_SCRAPER, SCRAPER_ANNOTATION } from "./constants";

export const keepFor = (role: Role) => (m: MonitorRef) => (m.annotations[SCRAPER_ANNOTATION] === CLUSTER_SCRAPER) === (role === "cluster-scraper");

export function targetNode(l: Labels): string {
  return (
    l.__meta_kubernetes_pod_node_name ||
    l.__meta_kubernetes_node_name ||
    l.__meta_kubernetes_endpoint_node_name ||
    (l.__meta_kubernetes_endpointslice_address_target_kind === "Node" ? l.__meta_kubernetes_endpointslice_address_target_name ?? "" : "")
  );
}

export const JOB_NAME = /^(serviceMonitor|podMonitor)\/[a-z0-9-]+\/[a-z0-9-]+\/\d+$|^(kubelet|blackbox-external|kubernetes-apiservers)$/;
