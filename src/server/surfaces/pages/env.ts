// What a page handler may read once the session middleware has run: the signed-in user and the session's CSRF
// token (put into every form as the CSRF_FIELD hidden field).
import type { User } from "../../domain/auth/users.js";
import type { ServerEnv } from "../http/surface.js";

export type PagesEnv = ServerEnv<{ webUser: User; csrfToken: string }>;
