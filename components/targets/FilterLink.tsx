import type { MouseEvent, ReactNode } from "react";

/**
 * A real link to the same list with one more filter (so it opens in a new tab too); a plain click applies the filter in
 * place. The text is rendered as text, whatever it contains.
 */
export function FilterLink({ href, onSelect, className, title, children }: { href: string; onSelect: () => void; className?: string; title?: string; children: ReactNode }) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    onSelect();
  };
  return (
    <a href={href} onClick={onClick} className={className} title={title}>
      {children}
    </a>
  );
}
