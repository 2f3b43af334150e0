/**
 * Writes an ONNX graph shaped like a BERT sentence encoder (token, position and type embeddings,
 * self-attention layers with feed-forward blocks and layer norms; inputs input_ids, attention_mask,
 * token_type_ids; output last_hidden_state), or like a cross-encoder (output logits), with seeded
 * random weights. No trained weights can be downloaded on these machines: this exercises the real
 * loading, batching, masking and pooling code at the real model's size and speed. The protobuf is
 * encoded by hand (ONNX's ModelProto schema).
 */
import { seededRandom } from './data.js';

export interface BertShape {
  vocab: number;
  hidden: number;
  heads: number;
  layers: number;
  intermediate: number;
  maxPositions: number;
  seed: number;
  /**
   * A cross-encoder (a sequence classifier with one label) instead of an encoder: the [CLS] state
   * through BERT's pooler (dense + tanh) and a dense layer to one value, output `logits` [batch, 1].
   */
  crossEncoder?: boolean;
}

/** all-MiniLM-L6-v2's shape. */
export const MINILM_SHAPE: BertShape = {
  vocab: 30522,
  hidden: 384,
  heads: 12,
  layers: 6,
  intermediate: 1536,
  maxPositions: 512,
  seed: 1,
};

// ---- protobuf wire format -------------------------------------------------------------------------

function varint(value: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    out.push(byte);
  } while (v !== 0n);
  return out;
}

class Writer {
  private parts: Uint8Array[] = [];
  private push(bytes: number[] | Uint8Array) {
    this.parts.push(bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes));
    return this;
  }
  int(field: number, value: number | bigint) {
    return this.push([...varint((field << 3) | 0), ...varint(value)]);
  }
  bytes(field: number, value: Uint8Array) {
    this.push([...varint((field << 3) | 2), ...varint(value.length)]);
    return this.push(value);
  }
  string(field: number, value: string) {
    return this.bytes(field, new TextEncoder().encode(value));
  }
  message(field: number, w: Writer) {
    return this.bytes(field, w.finish());
  }
  float(field: number, value: number) {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.push(varint((field << 3) | 5));
    return this.push(b);
  }
  finish(): Uint8Array {
    const total = this.parts.reduce((n, p) => n + p.length, 0);
    const out = new Uint8Array(total);
    let o = 0;
    for (const p of this.parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }
}

const FLOAT = 1;
const INT64 = 7;

type Attr = { name: string } & ({ i: number } | { f: number } | { ints: number[] });

function attribute(a: Attr): Writer {
  const w = new Writer().string(1, a.name);
  if ('i' in a) return w.int(3, a.i).int(20, 2);
  if ('f' in a) return w.float(2, a.f).int(20, 1);
  for (const v of a.ints) w.int(8, v);
  return w.int(20, 7);
}

function tensorType(elemType: number, dims: (number | string)[]): Writer {
  const shape = new Writer();
  for (const d of dims) {
    shape.message(1, typeof d === 'number' ? new Writer().int(1, d) : new Writer().string(2, d));
  }
  return new Writer().message(1, new Writer().int(1, elemType).message(2, shape));
}

// ---- graph ----------------------------------------------------------------------------------------

export function buildBertOnnx(shape: BertShape): Uint8Array {
  const rnd = seededRandom(shape.seed);
  const graph = new Writer().string(2, 'bert_random');
  let nodeCount = 0;
  const node = (op: string, inputs: string[], output: string, attrs: Attr[] = []) => {
    const w = new Writer();
    for (const i of inputs) w.string(1, i);
    w.string(2, output).string(3, `n${nodeCount++}`).string(4, op);
    for (const a of attrs) w.message(5, attribute(a));
    graph.message(1, w);
    return output;
  };
  const initializer = (name: string, dims: number[], type: number, data: Float32Array | BigInt64Array) => {
    const t = new Writer();
    for (const d of dims) t.int(1, d);
    t.int(2, type)
      .string(8, name)
      .bytes(9, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    graph.message(5, t);
    return name;
  };
  const random = (name: string, dims: number[], scale = 0.05) => {
    const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
    for (let i = 0; i < data.length; i++) data[i] = (rnd() * 2 - 1) * scale;
    return initializer(name, dims, FLOAT, data);
  };
  const filled = (name: string, dims: number[], value: number) =>
    initializer(name, dims, FLOAT, new Float32Array(dims.reduce((a, b) => a * b, 1)).fill(value));
  const ints = (name: string, values: number[], dims = [values.length]) =>
    initializer(name, dims, INT64, BigInt64Array.from(values.map(BigInt)));

  const { hidden: H, heads, intermediate: F } = shape;
  const headDim = H / heads;
  const layerNorm = (x: string, prefix: string) =>
    node(
      'LayerNormalization',
      [x, filled(`${prefix}.g`, [H], 1), filled(`${prefix}.b`, [H], 0)],
      `${prefix}.out`,
      [
        { name: 'axis', i: -1 },
        { name: 'epsilon', f: 1e-12 },
      ],
    );
  const dense = (x: string, prefix: string, inDim: number, outDim: number) =>
    node(
      'Add',
      [
        node('MatMul', [x, random(`${prefix}.w`, [inDim, outDim])], `${prefix}.mm`),
        random(`${prefix}.b`, [outDim], 0.01),
      ],
      `${prefix}.out`,
    );

  ints('c.one', [1], []);
  ints('c.zero', [0], []);
  ints('c.split_heads', [0, 0, heads, headDim]);
  ints('c.merge_heads', [0, 0, H]);
  ints('c.mask_axes', [1, 2]);
  filled('c.onef', [], 1);
  filled('c.neg', [], -10000);
  filled('c.scale', [], 1 / Math.sqrt(headDim));
  filled('c.gelu', [], 1.702);

  const words = node('Gather', [random('emb.word', [shape.vocab, H], 0.1), 'input_ids'], 'emb.words');
  const seqLen = node('Gather', [node('Shape', ['input_ids'], 'emb.shape'), 'c.one'], 'emb.len', [
    { name: 'axis', i: 0 },
  ]);
  const positions = node('Range', ['c.zero', seqLen, 'c.one'], 'emb.pos_ids');
  const pos = node('Gather', [random('emb.pos', [shape.maxPositions, H], 0.1), positions], 'emb.positions');
  const types = node('Gather', [random('emb.type', [2, H], 0.1), 'token_type_ids'], 'emb.types');
  let x = layerNorm(node('Add', [node('Add', [words, pos], 'emb.sum1'), types], 'emb.sum'), 'emb.ln');

  const maskF = node('Cast', ['attention_mask'], 'mask.f', [{ name: 'to', i: FLOAT }]);
  const maskBias = node(
    'Unsqueeze',
    [node('Mul', [node('Sub', ['c.onef', maskF], 'mask.inv'), 'c.neg'], 'mask.bias2d'), 'c.mask_axes'],
    'mask.bias',
  );

  for (let l = 0; l < shape.layers; l++) {
    const p = `l${l}`;
    const heads4 = (name: string, perm: number[]) =>
      node(
        'Transpose',
        [node('Reshape', [dense(x, `${p}.${name}`, H, H), 'c.split_heads'], `${p}.${name}.split`)],
        `${p}.${name}.t`,
        [{ name: 'perm', ints: perm }],
      );
    const q = heads4('q', [0, 2, 1, 3]);
    const k = heads4('k', [0, 2, 3, 1]);
    const v = heads4('v', [0, 2, 1, 3]);
    const scores = node(
      'Add',
      [node('Mul', [node('MatMul', [q, k], `${p}.qk`), 'c.scale'], `${p}.scaled`), maskBias],
      `${p}.masked`,
    );
    const probs = node('Softmax', [scores], `${p}.probs`, [{ name: 'axis', i: -1 }]);
    const ctx = node(
      'Reshape',
      [
        node('Transpose', [node('MatMul', [probs, v], `${p}.ctx4`)], `${p}.ctx.t`, [
          { name: 'perm', ints: [0, 2, 1, 3] },
        ]),
        'c.merge_heads',
      ],
      `${p}.ctx`,
    );
    const x1 = layerNorm(node('Add', [dense(ctx, `${p}.o`, H, H), x], `${p}.res1`), `${p}.ln1`);
    const h = dense(x1, `${p}.ff1`, H, F);
    // GELU in its sigmoid form: x * sigmoid(1.702 x).
    const gelu = node(
      'Mul',
      [h, node('Sigmoid', [node('Mul', [h, 'c.gelu'], `${p}.g1`)], `${p}.g2`)],
      `${p}.gelu`,
    );
    x = layerNorm(node('Add', [dense(gelu, `${p}.ff2`, F, H), x1], `${p}.res2`), `${p}.ln2`);
  }
  if (shape.crossEncoder) {
    const cls = node('Gather', [x, 'c.zero'], 'cls', [{ name: 'axis', i: 1 }]);
    const pooled = node('Tanh', [dense(cls, 'pooler', H, H)], 'pooled');
    node('Identity', [dense(pooled, 'classifier', H, 1)], 'logits');
  } else {
    node('Identity', [x], 'last_hidden_state');
  }

  for (const name of ['input_ids', 'attention_mask', 'token_type_ids']) {
    graph.message(11, new Writer().string(1, name).message(2, tensorType(INT64, ['batch', 'sequence'])));
  }
  graph.message(
    12,
    shape.crossEncoder
      ? new Writer().string(1, 'logits').message(2, tensorType(FLOAT, ['batch', 1]))
      : new Writer().string(1, 'last_hidden_state').message(2, tensorType(FLOAT, ['batch', 'sequence', H])),
  );

  return new Writer()
    .int(1, 8)
    .string(2, 'docslurp-tests')
    .message(7, graph)
    .message(8, new Writer().string(1, '').int(2, 17))
    .finish();
}
