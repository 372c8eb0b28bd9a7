import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { configSchema } from "../../config/schema.js";
import { SuiteResultsSchema } from "../../results/schema.js";
import { parseCommandArgs, type Command } from "../command.js";

/** JSON Schemas for editors and other tools: the config file and the results document. */
export function jsonSchemas(): Record<string, unknown> {
  return {
    "medalist.schema.json": {
      title: "Medalist configuration (medalist.yml)",
      ...z.toJSONSchema(configSchema(), { io: "input", unrepresentable: "any" }),
    },
    "results.schema.json": {
      title: "Medalist suite results (results.json)",
      ...z.toJSONSchema(SuiteResultsSchema, { io: "output", unrepresentable: "any" }),
    },
  };
}

export const schemaCommand: Command = {
  name: "schema",
  summary: "Write the JSON Schemas of the config file and the results document",
  usage: `Usage: medalist schema [--out DIR]

Writes medalist.schema.json and results.schema.json to DIR (default: schema/).
Point your editor's YAML/JSON schema setting at medalist.schema.json to validate medalist.yml.`,
  async run(argv) {
    const { values } = parseCommandArgs(argv, { out: { type: "string" } });
    const dir = values.out ?? "schema";
    mkdirSync(dir, { recursive: true });
    for (const [name, schema] of Object.entries(jsonSchemas())) {
      writeFileSync(join(dir, name), JSON.stringify(schema, null, 2) + "\n");
      console.log(`wrote ${join(dir, name)}`);
    }
    return 0;
  },
};
