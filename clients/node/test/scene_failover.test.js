// A SceneSession survives its replicas: a game ticks a scene of every entity
// kind with several messages in flight over a round_robin channel to two
// real collision_server processes while the stream under it ages out, the
// replica hosting it is drained (SIGTERM) or SIGKILLed. No message may fail,
// and every answer must equal the answer an unbroken raw stream gives the
// same messages on a server of its own, rewound and clamped queries
// included: the session resends the history window on reopening.
// Run: COLLISION_SERVER=path/to/collision_server node --test test/scene_failover.test.js
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { loadPackage } = require('./helpers');
const {
  config, Game, startReplica, drive, isAnswer, checkAgainstUnbroken,
} = require('./scene_helpers');

const cc = loadPackage();
// Streams end themselves at ~0.9 s of age (min(age, grace) less a tenth).
const AGEING = ['--max_connection_age=1s', '--max_connection_age_grace=1s'];

// Two replicas with `flags` and a round_robin client of both (grpc-js has
// no client-side health checking: a draining replica is skipped once it
// refuses new streams); stop() ends whatever is left.
async function twoReplicas(flags) {
  const replicas = [await startReplica(flags), await startReplica(flags)];
  const client = cc.createClient(
    `ipv4:${replicas.map((r) => r.address).join(',')}`, {
      channelOptions: {
        'grpc.service_config': JSON.stringify({
          loadBalancingConfig: [{ round_robin: {} }],
        }),
      },
    });
  await client.waitUntilServing();
  // The replica hosting the test's one scene, or null.
  const host = async () => {
    const open = await Promise.all(replicas.map((r) => r.scenesOpen()));
    const hosts = replicas.filter((_, i) => open[i] > 0);
    return hosts.length === 1 ? hosts[0] : null;
  };
  const stop = async () => {
    client.close();
    return Promise.all(replicas.map((r) => r.stop()));
  };
  return { replicas, client, host, stop };
}

const newRecord = () => ({ sent: [], outcomes: [] });

for (const dimension of ['2D', '3D']) {
  test(`a ${dimension} scene of every kind outlives ageing streams`,
    async () => {
      const env = await twoReplicas(AGEING);
      const record = newRecord();
      try {
        const scene = await env.client.openSceneSession(config(dimension));
        await drive(scene, new Game({ cc, dimension }), record,
          { until: () => scene.reopens >= 2 });
        await scene.close();
        assert.ok(scene.reopens >= 2);
      } finally {
        await env.stop();
      }
      assert.ok(record.outcomes.every(isAnswer));
      const { rewound, clamped } = await checkAgainstUnbroken(cc, record, [],
        config(dimension));
      assert.ok(rewound > 100, `${rewound} rewound queries`);
      assert.ok(clamped > 10, `${clamped} clamped queries`);
    });
}

test('the replica hosting the scene drains', async () => {
  // SIGTERM: NOT_SERVING for 200 ms, then its streams get 1 s to end.
  const env = await twoReplicas(['--drain_grace=200ms',
    '--shutdown_deadline=1s']);
  const record = newRecord();
  let drained = null;
  try {
    const scene = await env.client.openSceneSession(config());
    let drainedExit = null;
    await drive(scene, new Game({ cc }), record, {
      onTick: async (n) => {
        if (n >= 60 && !drained) {
          drained = await env.host();
          if (drained) {
            drained.kill('SIGTERM');
            drained.exited.then((code) => { drainedExit = code; });
          }
        }
      },
      until: () => scene.reopens >= 1 && drainedExit !== null &&
        record.sent.length > 200,
    });
    await scene.close();
    assert.ok(scene.reopens >= 1);
    assert.strictEqual(drainedExit, 0);
  } finally {
    await env.stop();
  }
  assert.ok(record.outcomes.every(isAnswer),
    record.outcomes.find((o) => !isAnswer(o)));
  const { rewound } = await checkAgainstUnbroken(cc, record, [], config());
  assert.ok(rewound > 100, `${rewound} rewound queries`);
});

test('the replica hosting the scene is killed, then the other', async () => {
  const env = await twoReplicas([]);
  const record = newRecord();
  let lost;
  let waited;
  try {
    const scene = await env.client.openSceneSession(config(),
      { maxReopens: 5, firstBackoffMs: 20, maxBackoffMs: 200 });
    let killed = null;
    await drive(scene, new Game({ cc }), record, {
      onTick: async (n) => {
        if (n >= 60 && !killed) {
          killed = await env.host();
          if (killed) killed.kill('SIGKILL');
        }
      },
      until: () => scene.reopens >= 1 && record.sent.length > 200,
    });
    assert.strictEqual(scene.reopens, 1);
    // The other replica goes too: the messages in flight fail with
    // UNAVAILABLE after the bounded attempts, and nothing else.
    for (const r of env.replicas) {
      if (r.alive()) r.kill('SIGKILL');
      await r.exited;
    }
    const game = new Game({ cc, seed: 8 });
    const started = Date.now();
    lost = await Promise.allSettled([1, 2, 3].map(
      () => scene.send(game.next())));
    waited = Date.now() - started;
    await scene.close();
  } finally {
    await env.stop();
  }
  assert.ok(record.outcomes.every(isAnswer),
    record.outcomes.find((o) => !isAnswer(o)));
  await checkAgainstUnbroken(cc, record, [], config());
  for (const { status, reason } of lost) {
    assert.strictEqual(status, 'rejected');
    assert.ok(reason instanceof cc.SceneSessionError, reason);
    assert.strictEqual(reason.code, cc.status.UNAVAILABLE);
    assert.strictEqual(reason.codeName, 'UNAVAILABLE');
    assert.match(reason.details, /could not be reopened after 5 attempts/);
  }
  assert.ok(waited < 10000, `${waited} ms`);
});
