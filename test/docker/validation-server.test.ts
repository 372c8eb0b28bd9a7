import { existsSync, statSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { firstHost } from "../../src/execute/docker/gateway.js";
import {
  multipartFile,
  startValidationServer,
  type ValidationServer,
} from "../../src/execute/validation-server.js";
import { checkFormat, sampleShape } from "../../src/grade/format-rules.js";
import { parseCsv } from "../../src/prepare/csv.js";

const sample = sampleShape("id,target\n1,0\n2,0\n3,0\n");

describe("format checks", () => {
  it("parses quoted CSV", () => {
    // The one reader's rules (src/tabular): blank lines are skipped, as pandas skips them.
    expect(parseCsv('a,b\r\n"x, ""y""",2\n\n')).toEqual([
      ["a", "b"],
      ['x, "y"', "2"],
    ]);
    expect(parseCsv("\uFEFFid\n1")).toEqual([["id"], ["1"]]);
  });

  it("accepts the same columns, ids and rows in any order", () => {
    expect(checkFormat(sample, "target,id\n1,3\n0.5,1\n0,2\n")).toEqual({ valid: true, errors: [] });
    expect(checkFormat(sample, "id,target\r\n1,0\r\n2,0\r\n3,0\r\n\r\n").valid).toBe(true);
  });

  it("names what is wrong, never a score", () => {
    const r = checkFormat(sample, "id,prediction\n1,0\n1,0\n7,1\n8,1\n");
    expect(r.valid).toBe(false);
    expect(r.errors).toEqual([
      'missing columns: "target"',
      'unexpected columns: "prediction"',
      "4 rows, expected 3 (as in the sample submission)",
      'ids missing from id: "2", "3"',
      'ids not in the sample submission: "7", "8"',
      'duplicate ids: "1"',
    ]);
    expect(checkFormat(sample, "").errors).toEqual(["the submission is empty"]);
    // The grader's reader (pandas' rules): a short row has a missing cell, a long one is an error.
    expect(checkFormat(sample, "id,target\n1,0\n2\n3,0\n").errors).toEqual([]);
    expect(checkFormat(sample, "id,target\n1,0\n2,0,5\n3,0\n").errors).toEqual([
      "expected 2 fields on data row 2, saw 3",
    ]);
  });

  it("extracts the file part of a multipart body", () => {
    const body = Buffer.from(
      '--XyZ\r\nContent-Disposition: form-data; name="note"\r\n\r\nhi\r\n' +
        '--XyZ\r\nContent-Disposition: form-data; name="file"; filename="s.csv"\r\nContent-Type: text/csv\r\n\r\nid,target\n1,0\n\r\n--XyZ--\r\n',
    );
    expect(multipartFile(body, "multipart/form-data; boundary=XyZ")?.toString()).toBe("id,target\n1,0\n");
  });

  it("finds a bridge's gateway from its subnet", () => {
    expect(firstHost("172.17.0.0/16")).toBe("172.17.0.1");
    expect(firstHost("10.20.30.64/26")).toBe("10.20.30.65");
  });
});

describe("validation server over HTTP", () => {
  let server: ValidationServer;
  let url: string;
  let samplePath: string;
  beforeAll(async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "medalist-vs-"));
    samplePath = path.join(dir, "sample_submission.csv");
    await writeFile(samplePath, "id,target\n1,0\n2,0\n3,0\n");
    server = await startValidationServer();
    url = server.register("toy", samplePath);
  });
  afterAll(() => server.close());

  it("checks a raw CSV body", async () => {
    const res = await fetch(url, {
      method: "POST",
      body: "id,target\n1,1\n2,1\n3,1\n",
      headers: { "content-type": "text/csv" },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      competition_id: "toy",
      valid: true,
      result: "Submission is valid.",
      errors: [],
    });
  });

  it("checks a multipart upload, as MLE-bench's validate script sends it", async () => {
    const form = new FormData();
    form.append("file", new Blob(["id,target\n1,1\n"]), "submission.csv");
    const body = (await (await fetch(url, { method: "POST", body: form })).json()) as {
      valid: boolean;
      result: string;
    };
    expect(body.valid).toBe(false);
    expect(body.result).toMatch(/^Submission is invalid: 1 rows, expected 3/);
    expect(JSON.stringify(body)).not.toMatch(/score/i);
  });

  it("refuses unknown URLs, other methods and oversized bodies", async () => {
    expect(
      (await fetch(url.replace(/\/[0-9a-f]{32}\//, `/${"0".repeat(32)}/`), { method: "POST", body: "x" }))
        .status,
    ).toBe(404);
    expect((await fetch(url)).status).toBe(405);
    const small = await startValidationServer({ maxBytes: 10 });
    try {
      const u = small.register("toy", samplePath);
      expect((await fetch(u, { method: "POST", body: "x".repeat(100) })).status).toBe(413);
      const gone = small.register("gone", "/nonexistent.csv");
      expect((await fetch(gone, { method: "POST", body: "id\n1\n" })).status).toBe(500);
    } finally {
      await small.close();
    }
  });

  it("serves one run's URL on a unix socket as /validate and /health", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "medalist-vsock-"));
    const sock = path.join(dir, "validate.sock");
    const runUrl = server.register("toy", samplePath, "run-sock");
    const stop = await server.listenSocket(runUrl, sock);
    try {
      expect(statSync(sock).mode & 0o777).toBe(0o666);
      const form =
        '--B\r\nContent-Disposition: form-data; name="file"; filename="s.csv"\r\n\r\nid,target\n1,1\n2,1\n3,1\n\r\n--B--\r\n';
      const ok = await overSocket(sock, "POST", "/validate", form, "multipart/form-data; boundary=B");
      expect(ok.status).toBe(200);
      expect(JSON.parse(ok.body)).toMatchObject({ valid: true, result: "Submission is valid." });
      expect(JSON.parse((await overSocket(sock, "GET", "/health")).body)).toMatchObject({
        status: "running",
      });
      // Only the plain path: a token URL (another run's) is not reachable through the socket.
      const other = new URL(server.register("toy", samplePath, "run-other")).pathname;
      expect((await overSocket(sock, "POST", other, "id,target\n")).status).toBe(404);
      await expect(server.listenSocket(`${server.url}/${"0".repeat(32)}/validate`, sock)).rejects.toThrow(
        /not a URL of this server/,
      );
    } finally {
      await stop();
    }
    expect(existsSync(sock)).toBe(false);
  });
});

function overSocket(
  socketPath: string,
  method: string,
  urlPath: string,
  body?: string,
  type = "text/csv",
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { socketPath, method, path: urlPath, headers: { "content-type": type } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
