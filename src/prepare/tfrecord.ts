import { closeSync, openSync, readSync } from "node:fs";

/**
 * Reads one bytes feature from every record of a TFRecord file (lite-prepare.md §2.16).
 * A record is: uint64 LE length, uint32 CRC, payload, uint32 CRC (CRCs are not checked);
 * the payload is a tf.train.Example protobuf: Example.features (1) → Features.feature (1, map
 * entries: key 1, value 2) → Feature.bytes_list (1) → BytesList.value (1).
 */
export function tfrecordFeature(file: string, feature: string): string[] {
  const fd = openSync(file, "r");
  const out: string[] = [];
  try {
    const head = Buffer.alloc(12);
    let pos = 0;
    for (;;) {
      const got = readSync(fd, head, 0, 12, pos);
      if (got === 0) break;
      if (got < 12) throw new Error(`${file}: truncated record header at byte ${pos}`);
      const len = Number(head.readBigUInt64LE(0));
      const payload = Buffer.alloc(len);
      if (readSync(fd, payload, 0, len, pos + 12) < len)
        throw new Error(`${file}: truncated record at byte ${pos}`);
      pos += 12 + len + 4;
      const value = exampleBytes(payload, feature);
      if (value === undefined) throw new Error(`${file}: a record has no bytes feature "${feature}"`);
      out.push(value);
    }
  } finally {
    closeSync(fd);
  }
  return out;
}

/** Protobuf fields of a message: [field number, wire type, value (varint) or bytes]. */
function* fields(buf: Buffer): Generator<[number, number, Buffer | bigint]> {
  let i = 0;
  const varint = (): bigint => {
    let shift = 0n;
    let v = 0n;
    for (;;) {
      if (i >= buf.length) throw new Error("truncated protobuf varint");
      const b = buf[i++];
      v |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
      shift += 7n;
    }
  };
  while (i < buf.length) {
    const key = Number(varint());
    const [num, wire] = [key >>> 3, key & 7];
    if (wire === 0) yield [num, wire, varint()];
    else if (wire === 1 || wire === 5) {
      i += wire === 1 ? 8 : 4; // fixed64 / fixed32: skipped
      yield [num, wire, 0n];
    } else if (wire === 2) {
      const len = Number(varint());
      yield [num, wire, buf.subarray(i, i + len)];
      i += len;
    } else throw new Error(`unsupported protobuf wire type ${wire}`);
  }
}

function exampleBytes(payload: Buffer, feature: string): string | undefined {
  for (const [n1, w1, features] of fields(payload)) {
    if (n1 !== 1 || w1 !== 2) continue;
    for (const [n2, w2, entry] of fields(features as Buffer)) {
      if (n2 !== 1 || w2 !== 2) continue;
      let key: string | undefined;
      let value: Buffer | undefined;
      for (const [n3, w3, x] of fields(entry as Buffer)) {
        if (n3 === 1 && w3 === 2) key = (x as Buffer).toString("utf8");
        if (n3 === 2 && w3 === 2) value = x as Buffer;
      }
      if (key !== feature || !value) continue;
      for (const [n4, w4, list] of fields(value)) {
        if (n4 !== 1 || w4 !== 2) continue; // bytes_list
        for (const [n5, w5, bytes] of fields(list as Buffer)) {
          if (n5 === 1 && w5 === 2) return (bytes as Buffer).toString("utf8");
        }
      }
    }
  }
  return undefined;
}
