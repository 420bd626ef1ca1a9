/**
 * Reset times in Claude Code's usage-limit messages: "resets 5am", "resets 11:30am",
 * "resets 3pm (Europe/Stockholm)", "resets Jan 30, 11:30am (Asia/Calcutta)", "Your limit will
 * reset at 7pm (Asia/Tokyo)". The wall-clock time is in the named IANA zone (else the local
 * one) and is the next such moment after the message: "5am" read at 6am is tomorrow, "Jan 2"
 * read on Dec 31 is next year. Zones and daylight saving go through Intl, no library.
 */

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

const RESET =
  /\breset(?:s|ting)?(?:\s+(?:at|on))?\s+(?:([a-z]{3})[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(?:at\s+)?)?(\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\.?)?(?:\s*\(([^)]+)\))?/i;

/** "resets Oct 24" with no time of day: the start of that day in its zone. */
const DATE_ONLY =
  /\breset(?:s|ting)?(?:\s+on)?\s+([a-z]{3})[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b(?!\s*,?\s*(?:at\s+)?\d)(?:\s*\(([^)]+)\))?/i;

/** "resets in 2h 30m", "resets in 45 minutes", "reset in 3 hours". */
const RELATIVE =
  /\breset(?:s|ting)?\s+in\s+(?:(\d+)\s*h(?:ours?|rs?)?\b)?\s*(?:(\d+)\s*m(?:in(?:ute)?s?)?\b)?/i;

/**
 * A message's reset time read in its context: the moment the message was printed (`now`) and
 * the zone to assume when it names none. Times up to `toleranceMs` in the past count as "just
 * reset" rather than tomorrow, so a clock a little off does not cost a day.
 */
export function parseResetTime(
  text: string,
  now: Date,
  localTimeZone: string,
  toleranceMs = 10 * 60 * 1000,
): Date | undefined {
  const [, hours, minutes] = RELATIVE.exec(text) ?? [];
  if (hours !== undefined || minutes !== undefined) {
    return new Date(now.getTime() + (Number(hours ?? 0) * 60 + Number(minutes ?? 0)) * 60_000);
  }
  const dateOnly = DATE_ONLY.exec(text);
  if (dateOnly !== null) {
    const [, monthName = '', dayText, zoneText] = dateOnly;
    const zone = validZone(zoneText?.trim()) ?? localTimeZone;
    return nextDate(monthName, Number(dayText), { hour: 0, minute: 0 }, zone, now, toleranceMs);
  }
  const match = RESET.exec(text);
  if (match === null) return undefined;
  const [, monthName, dayText, hourText, minuteText, meridiem, zoneText] = match;
  if (meridiem === undefined && minuteText === undefined) return undefined; // "resets 5": not a time
  let hour = Number(hourText);
  const minute = minuteText === undefined ? 0 : Number(minuteText);
  if (meridiem !== undefined) {
    if (hour < 1 || hour > 12) return undefined;
    const pm = meridiem.toLowerCase().startsWith('p');
    hour = (hour % 12) + (pm ? 12 : 0);
  }
  if (hour > 23 || minute > 59) return undefined;
  const zone = validZone(zoneText?.trim()) ?? localTimeZone;
  const today = wallDate(now.getTime(), zone);
  const earliest = now.getTime() - toleranceMs;

  if (monthName !== undefined && dayText !== undefined) {
    return nextDate(monthName, Number(dayText), { hour, minute }, zone, now, toleranceMs);
  }
  for (const plusDays of [0, 1, 2]) {
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day + plusDays));
    const at = zonedToEpoch(
      {
        year: date.getUTCFullYear(),
        month: date.getUTCMonth() + 1,
        day: date.getUTCDate(),
        hour,
        minute,
      },
      zone,
    );
    if (at >= earliest) return new Date(at);
  }
  return undefined;
}

/** The next such date and time (this year or the next) after `now` less the tolerance. */
function nextDate(
  monthName: string,
  day: number,
  time: { hour: number; minute: number },
  zone: string,
  now: Date,
  toleranceMs: number,
): Date | undefined {
  const month = MONTHS.indexOf(monthName.toLowerCase()) + 1;
  if (month === 0 || day < 1 || day > 31) return undefined;
  const { year } = wallDate(now.getTime(), zone);
  for (const each of [year, year + 1]) {
    const at = zonedToEpoch({ year: each, month, day, ...time }, zone);
    if (at >= now.getTime() - toleranceMs) return new Date(at);
  }
  return undefined;
}

/** The zone if Intl knows it ("Asia/Calcutta", "UTC"), else undefined. */
export function validZone(zone: string | undefined): string | undefined {
  if (zone === undefined || zone === '') return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** The machine's own zone, for messages that name none. */
export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function wallParts(epoch: number, zone: string): WallTime & { second: number } {
  let format = formatters.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, format);
  }
  const parts = format.formatToParts(new Date(epoch));
  const get = (type: Intl.DateTimeFormatPartTypes): number =>
    Number(parts.find((part) => part.type === type)?.value ?? 0);
  return {
    year: get('year'),
    month: get('month'),
    day: get('day'),
    hour: get('hour') % 24,
    minute: get('minute'),
    second: get('second'),
  };
}

function wallDate(epoch: number, zone: string): { year: number; month: number; day: number } {
  const { year, month, day } = wallParts(epoch, zone);
  return { year, month, day };
}

/** How far the zone's wall clock is ahead of UTC at `epoch`, in ms. */
function offsetAt(epoch: number, zone: string): number {
  const wall = wallParts(epoch, zone);
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  return asUtc - Math.floor(epoch / 1000) * 1000;
}

/** The instant the zone's wall clock shows `wall` (the later offset wins in a DST overlap). */
export function zonedToEpoch(wall: WallTime, zone: string): number {
  const guess = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
  const first = guess - offsetAt(guess, zone);
  const second = guess - offsetAt(first, zone);
  return second;
}
