// A CLI process parses each schema once or twice, and zod's JIT (a parser compiled with new Function for each
// object schema on its first parse) costs more than it saves there: command modules that parse import this
// first. `baton serve`, long-running, keeps the JIT.
import * as z from "zod";

z.config({ jitless: true });
