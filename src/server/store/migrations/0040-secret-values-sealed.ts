// Secret values at rest become AES-256-GCM ciphertext (DESIGN "Secret values at rest"): the column is renamed so
// no reader can mistake it for plaintext, and every existing value is sealed with the operator's key.
import { isSealed, secretScope } from "../../primitives/secret-box.js";
import type { Migration } from "./index.js";

export const secretValuesSealed: Migration = {
  version: 40,
  name: "secret-values-sealed",
  async up(m, context) {
    await m.exec("ALTER TABLE secrets RENAME COLUMN value TO value_sealed");
    const rows = await m.all<{
      id: string;
      repository_id: string;
      name: string;
      value_sealed: string | null;
    }>("SELECT id, repository_id, name, value_sealed FROM secrets");
    // A seeded row may hold no value yet (NULL); only text values are sealed.
    const plain = rows.filter((row) => row.value_sealed !== null && !isSealed(row.value_sealed));
    if (plain.length === 0) return;
    const box = context.secretBox;
    if (!box) {
      throw new Error(
        `${plain.length} secret value(s) need sealing and no secret key was given; start baton serve with --secret-key-file`,
      );
    }
    for (const row of plain) {
      const sealed = box.seal(secretScope(row.repository_id, row.name), row.value_sealed!);
      await m.run("UPDATE secrets SET value_sealed = ? WHERE id = ?", [sealed, row.id]);
    }
  },
};
