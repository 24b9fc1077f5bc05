/** Fixed facts of the demo world, shared by the generator and the discovery. */
import { CLUSTER_SCRAPER_VALUE, DEFAULT_SCRAPER_ANNOTATION } from "@allocation-lens/allocation/routing";

/** Every scrape config the demo TAs serve carries a fake credential containing this marker, so leak tests can grep for it. */
export const DEMO_SECRET_MARKER = "lens-demo-secret";

/** The routing annotation and the value that sends a monitor to the cluster-scraper TA (declared in lib/routing.ts). */
export const SCRAPER_ANNOTATION = DEFAULT_SCRAPER_ANNOTATION;
export const CLUSTER_SCRAPER = CLUSTER_SCRAPER_VALUE;

export const REGION = "us-east-1";
export const ZONES: readonly string[] = ["us-east-1a", "us-east-1b", "us-east-1c"];

/** The kubelet's port on every node (its status.daemonEndpoints). */
export const KUBELET_PORT = 10250;

export const DEFAULT_NODES = 12;
export const MAX_NODES = 5000;

/** The alphabet Kubernetes uses for generated name suffixes (k8s.io/apimachinery/pkg/util/rand). */
export const K8S_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
