// The Activity Timeline projection lives in @keel/events (schemas/ts/src/timeline.ts), so every
// front end gets the page's logic; this module keeps the page's imports working.
export {
  MOVE_FILE_TOOL,
  phaseId,
  timelinePayload,
  toTimeline,
  toTimelineAll,
} from "../../schemas/ts/src/timeline";
