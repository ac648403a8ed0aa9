/**
 * The adaptive recall budget (seed 003): how many entries a recall block may hold given how
 * full the host's context window already is.
 *
 *   used < 30 %        → 10 entries (light)
 *   30 % … 70 %        → 10 down to 4 along t² (slow at first, fast at the end)   (medium)
 *   70 % … 85 %        → 4 down to 2, linear                                        (heavy)
 *   > 85 %             → 2                                                          (critical)
 */
export type BudgetZone = 'light' | 'medium' | 'heavy' | 'critical';

export interface Budget { limit: number; zone: BudgetZone; used: number }

export const BUDGET = { max: 10, mid: 4, min: 2, light: 0.3, medium: 0.7, heavy: 0.85 } as const;

/** Entries allowed at `used` (fraction of the context window in use, 0…1). */
export function recallBudget(used: number): Budget {
  const u = Math.min(1, Math.max(0, Number.isFinite(used) ? used : 0));
  if (u < BUDGET.light) return { limit: BUDGET.max, zone: 'light', used: u };
  if (u <= BUDGET.medium) {
    const t = (u - BUDGET.light) / (BUDGET.medium - BUDGET.light);
    return { limit: Math.round(BUDGET.max - (BUDGET.max - BUDGET.mid) * t * t), zone: 'medium', used: u };
  }
  if (u <= BUDGET.heavy) {
    const t = (u - BUDGET.medium) / (BUDGET.heavy - BUDGET.medium);
    return { limit: Math.round(BUDGET.mid - (BUDGET.mid - BUDGET.min) * t), zone: 'heavy', used: u };
  }
  return { limit: BUDGET.min, zone: 'critical', used: u };
}
