/** Fixed facts of the demo world, shared by the generator and the discovery. */

/** Every scrape config the demo TAs serve carries a fake credential containing this marker, so leak tests can grep for it. */
export const DEMO_SECRET_MARKER = "lens-demo-secret";

/** The routing annotation (lib/routing.ts) and the value that sends a monitor to the cluster-scraper TA. */
export const SCRAPER_ANNOTATION = "cloudwatch.aws.amazon.com/scraper";
export const CLUSTER_SCRAPER = "cluster-scraper";

export const REGION = "us-east-1";
export const ZONES: readonly string[] = ["us-east-1a", "us-east-1b", "us-east-1c"];

export const DEFAULT_NODES = 12;
export const MAX_NODES = 5000;

/** The alphabet Kubernetes uses for generated name suffixes (k8s.io/apimachinery/pkg/util/rand). */
export const K8S_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
