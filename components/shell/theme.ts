/**
 * Theme: `?theme=dark|light` in the URL wins (embeds choose it), then the user's stored choice, then the system setting.
 * THEME_SCRIPT runs before paint so the page never flashes the wrong theme.
 */
export const THEME_KEY = "allocation-lens-theme";

export const THEME_SCRIPT = `(function(){try{var u=new URLSearchParams(location.search).get("theme");var s=localStorage.getItem("${THEME_KEY}");var t=u==="dark"||u==="light"?u:s==="dark"||s==="light"?s:(matchMedia("(prefers-color-scheme: dark)").matches?"dark":"light");document.documentElement.dataset.theme=t;}catch(e){document.documentElement.dataset.theme="light";}})();`;
