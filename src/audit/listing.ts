/**
 * One management-API listing, every row: in one request while the broker holds at most UNPAGED_MAX
 * objects of its kind, in pages of PAGE_SIZE beyond that.
 *
 * Paging costs the broker a pass over the whole listing per page: for every page it lists, formats
 * and sorts all the vhost's queues again before it cuts the page (`augment_resources0` in
 * rabbit_mgmt_util.erl, v3.10.8 and v4.3.5; MAX_PAGE_SIZE 500), so 10,000 queues in pages are 20
 * passes, in one request 1. The bindings listing has no pages on either line (`reply_list`,
 * rabbit_mgmt_wm_bindings.erl), so one answer of that size is one the audit takes anyway.
 */
import type { Reader } from './http.js';

const PAGE_SIZE = 500;
/** objects of one kind (the overview's object_totals) up to which a listing is one request: about 5 MB of queues */
export const UNPAGED_MAX = 20_000;

export type Row = Record<string, unknown>;
interface Page {
  items: Row[];
  page_count: number;
  total_count: number;
}

interface Listing {
  /** the path with its query, without `columns` */
  path: string;
  columns: string;
  /** the kind, as the overview's object_totals names it: queues, exchanges, channels */
  what: string;
  /** how many the broker holds (object_totals), when it says */
  total: unknown;
}

/** whether `l` is read in one request */
export const unpaged = (total: unknown): total is number => typeof total === 'number' && total <= UNPAGED_MAX;

const withQuery = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;

/** every row of `l`: one request when unpaged, else page 1 (which says how many pages), then the rest */
export async function listing(http: Reader, l: Listing, progress: (line: string) => void): Promise<Row[]> {
  const columns = `columns=${l.columns}`;
  if (unpaged(l.total)) {
    if (l.total > PAGE_SIZE) progress(`audit: reading ${l.total} ${l.what} in one request`);
    return http.get<Row[]>(withQuery(l.path, columns));
  }
  const at = (page: number) => withQuery(l.path, `page=${page}&page_size=${PAGE_SIZE}&${columns}`);
  const first = await http.get<Page | Row[]>(at(1));
  if (Array.isArray(first)) return first; // a broker that ignores paging returns the whole list
  const pages = typeof first.page_count === 'number' ? first.page_count : 1;
  let done = first.items?.length ?? 0;
  const rest = await Promise.all(
    Array.from({ length: Math.max(0, pages - 1) }, async (_, i) => {
      const p = await http.get<Page>(at(i + 2));
      done += p.items?.length ?? 0;
      progress(`audit: ${l.what} ${done}/${first.total_count}`);
      return p.items ?? [];
    }),
  );
  return [...(first.items ?? []), ...rest.flat()];
}
