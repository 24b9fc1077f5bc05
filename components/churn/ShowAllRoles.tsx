/** The one action of a churn panel emptied by the role filter. */
export function ShowAllRoles({ onClick }: { onClick: () => void }) {
  return (
    <button type="button" className="btn" onClick={onClick}>
      Show all roles
    </button>
  );
}
