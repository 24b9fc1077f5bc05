import type { CollectorRow } from "@/lib/analysis/types";
import type { CollectorsView } from "@/lib/views/collectors";
import s from "./collectors.module.css";
import { formatCount } from "@/lib/format";

type RoleView = CollectorsView["roles"][number];
const SHOWN = 6;

interface Group {
  key: string;
  token: string;
  title: string;
  why: string;
  items: { id: string; detail: string | null }[];
  tone: "bad" | "warn";
}

function groups(role: RoleView): Group[] {
  const byId = new Map<string, CollectorRow>(role.collectors.map((c) => [c.id, c]));
  const all: Group[] = [
    {
      key: "notEligibleInTa",
      token: "not_eligible",
      tone: "bad",
      title: "Listed by the TA, not eligible",
      why: "Its targets are ghosts: not scraped, and not counted by the TA's unassigned gauge.",
      // TA-only collectors are not eligible either: they get their own group below
      items: role.notEligibleInTa.filter((c) => c.inKubernetes).map((c) => ({ id: c.id, detail: `${c.reason ?? "not eligible"} · ${c.targets} targets` })),
    },
    {
      key: "taOnly",
      token: "ta_only",
      tone: "bad",
      title: "Listed by the TA, unknown to Kubernetes",
      why: "A deleted pod still registered (the TA missed the deletion): its targets are ghosts.",
      items: role.taOnly.map((id) => ({ id, detail: `${byId.get(id)?.targets ?? 0} targets` })),
    },
    {
      key: "missingFromTa",
      token: "not_in_ta",
      tone: "warn",
      title: "Eligible, not listed by the TA yet",
      why: "The TA has not registered this pod: it gets no targets until it does.",
      items: role.missingFromTa.map((id) => ({ id, detail: byId.get(id)?.node ?? null })),
    },
  ];
  return all.filter((g) => g.items.length > 0);
}

/** Where the TA's collector list and Kubernetes disagree, with reasons; each group links to the filtered table. */
export function Disagreements({ role, onShow, compact }: { role: RoleView; onShow?: (q: string) => void; compact?: boolean }) {
  const gs = groups(role);
  if (!gs.length) {
    return <p className={s.agree}>The TA and Kubernetes agree on all {formatCount(role.collectors.length)} collectors.</p>;
  }
  return (
    <div className={s.disagreements}>
      {gs.map((g) => (
        <section key={g.key} className={`${s.group} ${s[`group_${g.tone}`]}`} aria-label={g.title}>
          <h3>
            {g.title} <span className={`badge ${g.tone}`}>{g.items.length}</span>
          </h3>
          {compact ? null : <p className={s.why}>{g.why}</p>}
          <ul>
            {g.items.slice(0, compact ? 3 : SHOWN).map((i) => (
              <li key={i.id}>
                <code>{i.id}</code>
                {i.detail ? <span className={s.detail}>{i.detail}</span> : null}
              </li>
            ))}
          </ul>
          {onShow && g.items.length > (compact ? 3 : SHOWN) ? (
            <button type="button" className="btn btn-ghost" onClick={() => onShow(`${role.role} ${g.token}`)}>
              Show all {g.items.length} in the table
            </button>
          ) : null}
        </section>
      ))}
    </div>
  );
}
