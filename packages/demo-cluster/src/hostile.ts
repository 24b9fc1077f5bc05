/**
 * The `hostile-target` fault: a target whose job name and label values carry markup, quotes, `../` and `%2F`, as a
 * compromised or careless workload could publish them. The dashboard must show them as text, never run them.
 */
import type { Role, Target } from "@allocation-lens/allocation/model";
import { targetKey } from "./world/discovery";
import { DEMO_SECRET_MARKER } from "./world/constants";

export const HOSTILE_JOB = `"><img src=x onerror=alert(1)>/../%2Fjob'`;

export function hostileJob(role: Role): { name: string; targets: Target[]; config: Record<string, unknown> } {
  const name = `${HOSTILE_JOB}-${role}`;
  const labels = {
    __address__: "10.66.6.6:9100",
    __meta_kubernetes_namespace: `<script>alert("ns")</script>`,
    __meta_kubernetes_pod_name: `../../etc/passwd%2F"'<b>`,
    __meta_kubernetes_pod_label_app: `</div><iframe src="javascript:alert(1)">`,
  };
  return {
    name,
    targets: [{ key: targetKey(name, labels), job: name, address: labels.__address__, labels }],
    config: { job_name: name, scrape_interval: "30s", basic_auth: { username: "x", password: `${DEMO_SECRET_MARKER}-hostile` }, static_configs: [{ targets: [labels.__address__] }] },
  };
}
