import type { Role } from "@/lib/model";
import styles from "./churn.module.css";

/** All roles, or one: toggle buttons (aria-pressed), kept in the URL by the caller. */
export function RoleChips({ roles, role, onRole }: { roles: readonly Role[]; role: Role | null; onRole: (r: Role | null) => void }) {
  return (
    <div className={styles.roles} role="group" aria-label="Role">
      {[null, ...roles].map((r) => (
        <button key={r ?? "all"} type="button" aria-pressed={role === r} onClick={() => onRole(r)}>
          {r ?? "All roles"}
        </button>
      ))}
    </div>
  );
}
