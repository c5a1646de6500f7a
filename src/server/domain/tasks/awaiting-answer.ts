// Which `replied` tasks wait for an answer: the agent's latest entry is a question (`clarify`). The API's status
// stays `replied` (the reference's value); the dashboard says in words that the task waits for a person.
import type { Queryable } from "../../store/store.js";
import type { ApiTask } from "./views.js";

/** The ids among `tasks` whose status is `replied` and whose agent's latest entry asks a question. */
export async function tasksAwaitingAnswer(db: Queryable, tasks: readonly ApiTask[]): Promise<Set<string>> {
  const replied = tasks.filter((task) => task.status === "replied").map((task) => task.id);
  if (replied.length === 0) return new Set();
  const rows = (await db.all(
    `SELECT m.task_id AS "taskId" FROM task_messages m
     WHERE m.task_id IN (${replied.map(() => "?").join(", ")}) AND m.role = 'agent' AND m.kind = 'clarify'
       AND m.seq = (SELECT max(x.seq) FROM task_messages x WHERE x.task_id = m.task_id AND x.role = 'agent')`,
    replied,
  )) as { taskId: string }[];
  return new Set(rows.map((row) => row.taskId));
}
