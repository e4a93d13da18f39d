// The 100-record timeline window lives in @keel/events (schemas/ts/src/window.ts), so every
// front end gets the page's logic; this module keeps the page's imports working.
export { moveHalf, TimelineWindow, WINDOW_CAPACITY, type MoveHalf } from "../../schemas/ts/src/window";
