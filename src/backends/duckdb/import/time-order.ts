/**
 * How far an input is from time order, as DuckDB's zone maps see it: they keep the smallest and
 * largest `timestamp` of each row group, so a time-bounded query skips a row group whose span misses
 * its range. In time order (or newest first, or nearly: events from several shippers interleaved)
 * each row group spans its share of the input's time; in no order, nearly all of it, and every
 * query reads every row group until `cannery compact` sorts the table.
 */

/** DuckDB's row group: the unit a zone map covers. */
const ROW_GROUP = 122_880;
/** Below this many row groups, skipping some saves little, and a table this small is scanned in no time. */
const MIN_ROW_GROUPS = 4;
/** How many times its share of the time the typical row group may span before it is "far from order". */
const SPREAD = 4;

export class TimeOrder {
  private first = Number.POSITIVE_INFINITY;
  private last = Number.NEGATIVE_INFINITY;
  private groupFirst = Number.POSITIVE_INFINITY;
  private groupLast = Number.NEGATIVE_INFINITY;
  private inGroup = 0;
  private readonly spans: number[] = [];

  add(micros: number): void {
    if (micros < this.groupFirst) this.groupFirst = micros;
    if (micros > this.groupLast) this.groupLast = micros;
    this.inGroup += 1;
    if (this.inGroup === ROW_GROUP) {
      this.spans.push(this.groupLast - this.groupFirst);
      if (this.groupFirst < this.first) this.first = this.groupFirst;
      if (this.groupLast > this.last) this.last = this.groupLast;
      this.groupFirst = Number.POSITIVE_INFINITY;
      this.groupLast = Number.NEGATIVE_INFINITY;
      this.inGroup = 0;
    }
  }

  /** Whether the typical full row group spans several times its share of the input's time. */
  get farFromOrder(): boolean {
    if (this.spans.length < MIN_ROW_GROUPS) return false;
    const share = (this.last - this.first) / this.spans.length;
    const sorted = [...this.spans].sort((a, b) => a - b);
    const typical = sorted[Math.floor(sorted.length / 2)]!;
    return typical > SPREAD * share;
  }
}
