// What the ticket routes reach the outside through: the workspace's tracker and code host (ports, local by
// default), and the log for a claim that failed after its task was saved.
import type { Logger } from "pino";
import type { Codehost } from "../../adapters/codehost/port.js";
import type { Tracker } from "../../adapters/tracker/port.js";

export interface TicketPorts {
  tracker: Tracker;
  codehost: Codehost;
  logger: Logger;
}

/** How many issues a search asks each port for before the service leaves some out and keeps 10. */
export const PORT_SEARCH_PAGE = 100;
