/**
 * Events read from the store at a time while a byte-bounded page fills (trigger history, the
 * audit feed): a page stops at its byte bound, so a read of its whole `limit` (up to 1,000
 * events of up to a definition's size each) would hold far more than it sends.
 */
export const PAGE_READ_CHUNK = 32;

/** The items of one page, each already JSON; filled by `add`. */
export interface BoundedPage {
  readonly items: readonly string[];
  /** Bytes of the JSON array of the items so far: `[a,b]`. */
  readonly bytes: number;
  /**
   * Adds `json` if the array stays within the bound, or the page is empty (a page always holds
   * one item, so paging moves on). False when it did not fit: the page is full, and every later
   * `add` is refused too (a page never skips an item to take a smaller one).
   */
  add(json: string): boolean;
}

/** An empty page whose items' JSON array (brackets and commas counted) stays within `maxBytes`. */
export const boundedPage = (maxBytes: number): BoundedPage => {
  const items: string[] = [];
  let bytes = 2;
  let full = false;
  return {
    items,
    get bytes() {
      return bytes;
    },
    add: (json) => {
      const size = Buffer.byteLength(json) + (items.length > 0 ? 1 : 0);
      full ||= items.length > 0 && bytes + size > maxBytes;
      if (full) return false;
      items.push(json);
      bytes += size;
      return true;
    },
  };
};
