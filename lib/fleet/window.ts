/** The fleet trend's window, shared by its queries (server) and its sparklines (browser): no dependency of either side. */
export const FLEET_LOOKBACK_MS = 24 * 3600 * 1000;
/** points of each row's trend over the lookback */
export const FLEET_TREND_POINTS = 96;
