/**
 * The emulator's times are the package's one time module (`provider/time`); this file only lets the emulator's
 * files import them from beside themselves. The emulator reads times in the module's default, `lenient`,
 * profile, as the service reads what clients send.
 */
export {
  floorMs,
  formatNs,
  isoSeconds,
  nowNs,
  parseQueryTimeNs,
  parseRfc3339Ns,
  ZERO_TIME,
} from "../provider/time";
