// The page every management list answers: Lethe's {items, total, page, size} plus Fides' `pages`, so a
// script written for Fides can page through any list.
export interface PageOf<T> {
  items: T[];
  total: number;
  page: number;
  size: number;
  /** How many pages of `size` the whole list fills (0 for an empty list), as Fides counts them. */
  pages: number;
}

export function pageOf<T>(items: T[], total: number, page: number, size: number): PageOf<T> {
  return { items, total, page, size, pages: Math.ceil(total / size) };
}
