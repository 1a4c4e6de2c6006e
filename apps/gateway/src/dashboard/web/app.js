// The customer dashboard: a page opened from a signed URL (`/dashboard?token=…`). It calls the
// gateway with that token only (`Authorization: Dashboard TOKEN`; `?token=` for the event stream,
// which cannot send headers): never an API key. Built by esbuild into dist/dashboard-web.
import { render } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { html } from 'htm/preact';

const STATUSES = ['pending', 'completed', 'expired', 'failed', 'cancelled', 'error'];
/** The event stream's event names (one per notification type). */
const EVENT_TYPES = ['intent_created', 'intent_tx_pending', 'intent_ignored', 'intent_completed', 'intent_failed', 'intent_expired', 'intent_cancelled', 'intent_error'];
const PAGE_SIZE = 20;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

const token = new URLSearchParams(location.search).get('token') ?? '';

/** The token's claims, read only to lay the page out (the gateway checks the signature). */
function claimsOf(t) {
  try {
    const payload = JSON.parse(atob(t.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')));
    return { kind: payload.kind, sourceId: payload.src ?? null, exp: payload.exp };
  } catch {
    return null;
  }
}

/**
 * Amounts arrive as JSON numbers written from exact decimals: keep them as the text they were
 * (JSON.parse would round past 15 or so digits).
 */
function parseExact(text) {
  return JSON.parse(text.replace(/"(amount|pending|claimable|paid|estimatedUsd)"\s*:\s*(-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)/g, '"$1":"$2"'));
}

class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: { authorization: `Dashboard ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let data = null;
  try {
    data = text ? parseExact(text) : null;
  } catch {
    // not JSON
  }
  if (!res.ok) throw new ApiError(res.status, data?.message ?? `The server answered ${res.status}`);
  return { data, next: res.headers.get('x-next-cursor') };
}

const short = (s, n = 10) => (s && s.length > n + 6 ? `${s.slice(0, n)}…${s.slice(-4)}` : s);
const time = (iso) => (iso ? new Date(iso).toLocaleString() : '');

function Status({ value }) {
  return html`<span class=${`status status-${value}`}>${value}</span>`;
}

/** The tenant's intents: tabs by status, a wallet filter, pages, live updates. */
function Intents({ onFatal }) {
  const [status, setStatus] = useState('all');
  const [wallet, setWallet] = useState('');
  const [walletInput, setWalletInput] = useState('');
  const [walletProblem, setWalletProblem] = useState('');
  const [cursors, setCursors] = useState([null]); // cursor of each page seen so far
  const [page, setPage] = useState({ items: [], next: null, loading: true });
  const [live, setLive] = useState('connecting');
  const filter = useRef({ status, wallet, first: true });
  filter.current = { status, wallet, first: cursors.length === 1 };

  const cursor = cursors[cursors.length - 1];
  useEffect(() => {
    let stale = false;
    setPage((p) => ({ ...p, loading: true }));
    const body = { status: status === 'all' ? STATUSES : [status], limit: PAGE_SIZE, ...(wallet ? { addresses: [wallet] } : {}), ...(cursor ? { cursor } : {}) };
    api('POST', '/v1/intents/search', body)
      .then(({ data, next }) => !stale && setPage({ items: data, next, loading: false }))
      .catch((err) => !stale && onFatal(err));
    return () => {
      stale = true;
    };
  }, [status, wallet, cursor]);

  useEffect(() => {
    const source = new EventSource(`/v1/intents/events?token=${encodeURIComponent(token)}`);
    const onEvent = (e) => {
      let event;
      try {
        event = JSON.parse(e.data);
      } catch {
        return;
      }
      const intent = event.intent;
      if (!intent) return;
      setPage((p) => {
        const at = p.items.findIndex((i) => i.id === intent.id);
        if (at >= 0) {
          const items = p.items.slice();
          items[at] = intent;
          return { ...p, items };
        }
        const f = filter.current;
        const matches = (f.status === 'all' || f.status === intent.status) && (!f.wallet || f.wallet.toLowerCase() === intent.wallet.toLowerCase());
        if (!f.first || !matches) return p;
        const items = [intent, ...p.items];
        // A row pushed off the first page opens a next page.
        return items.length > PAGE_SIZE ? { ...p, items: items.slice(0, PAGE_SIZE), next: p.next ?? 'more' } : { ...p, items };
      });
    };
    for (const type of EVENT_TYPES) source.addEventListener(type, onEvent);
    source.onopen = () => setLive('live');
    source.onerror = () => {
      setLive('reconnecting');
      // EventSource does not tell why: ask the API (an expired link answers 401).
      api('POST', '/v1/intents/search', { status: ['pending'], limit: 1 }).catch((err) => {
        if (err.status === 401) {
          source.close();
          onFatal(err);
        }
      });
    };
    return () => source.close();
  }, []);

  const choose = (s) => {
    setStatus(s);
    setCursors([null]);
  };
  const search = (e) => {
    e.preventDefault();
    const w = walletInput.trim();
    if (w && !ADDRESS.test(w)) {
      setWalletProblem('Enter a wallet address: 0x and 40 hex digits');
      return;
    }
    setWalletProblem('');
    setWallet(w);
    setCursors([null]);
  };
  const nextPage = () => {
    if (page.next === 'more') {
      // The next page started with rows that came live: load it from the last row shown.
      setCursors((c) => [...c, cursorAfter(page.items)]);
    } else setCursors((c) => [...c, page.next]);
  };

  return html`
    <section aria-labelledby="intents-title">
      <h2 id="intents-title">Intents <span class="live" data-state=${live} role="status">${live === 'live' ? '● live' : live === 'connecting' ? 'connecting…' : 'reconnecting…'}</span></h2>
      <ul class="tabs" role="toolbar" aria-label="Status">
        ${['all', ...STATUSES].map(
          (s) => html`<li><button type="button" data-status=${s} aria-pressed=${String(status === s)} onClick=${() => choose(s)}>${s === 'all' ? 'All' : s}</button></li>`,
        )}
      </ul>
      <form class="inline" role="search" onSubmit=${search}>
        <label for="wallet">Wallet</label>
        <input id="wallet" type="text" placeholder="0x… (empty: every wallet)" value=${walletInput} onInput=${(e) => setWalletInput(e.currentTarget.value)} aria-describedby="wallet-problem" />
        <button type="submit">Search</button>
        <span id="wallet-problem" class="error-text" role="alert">${walletProblem}</span>
      </form>
      <table id="intents" aria-busy=${String(page.loading)}>
        <thead>
          <tr><th>Created</th><th>Status</th><th>Chain</th><th>Wallet</th><th>Token</th><th class="num">Buy amount (wei)</th><th class="num">Bribe (wei)</th><th>Reason</th></tr>
        </thead>
        <tbody>
          ${page.items.map(
            (i) => html`<tr data-intent-id=${i.id} data-status=${i.status}>
              <td>${time(i.createdAt)}</td>
              <td><${Status} value=${i.status} /></td>
              <td>${i.chainId}</td>
              <td><code title=${i.wallet}>${short(i.wallet)}</code></td>
              <td><code title=${i.tokenAddress}>${short(i.tokenAddress)}</code></td>
              <td class="num">${i.buyAmount}</td>
              <td class="num">${i.bribe}</td>
              <td>${i.statusReason ?? ''}</td>
            </tr>`,
          )}
        </tbody>
      </table>
      ${!page.loading && page.items.length === 0 ? html`<p class="note" id="no-intents">No intents here.</p>` : null}
      <div class="pager">
        <button type="button" class="secondary" id="prev-page" disabled=${cursors.length === 1} onClick=${() => setCursors((c) => c.slice(0, -1))}>Previous</button>
        <span id="page-number">Page ${cursors.length}</span>
        <button type="button" class="secondary" id="next-page" disabled=${!page.next} onClick=${nextPage}>Next</button>
      </div>
    </section>
  `;
}

/** A search cursor is the base64url of the last id shown (what x-next-cursor holds). */
function cursorAfter(items) {
  const last = items[items.length - 1];
  return last ? btoa(last.id).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '') : null;
}

/** A source's balances (with their USD estimate), its payouts, and a payout request. */
function Source({ sourceId, onFatal }) {
  const [cashback, setCashback] = useState(null);
  const [payouts, setPayouts] = useState(null);
  const [address, setAddress] = useState('');
  const [message, setMessage] = useState(null);
  const [busy, setBusy] = useState(false);
  const base = `/v1/cashback/source/${encodeURIComponent(sourceId)}`;

  const load = useCallback(() => {
    api('GET', base)
      .then(({ data }) => setCashback(data))
      .catch(onFatal);
    api('GET', `${base}/payouts`)
      .then(({ data }) => setPayouts(data))
      .catch(onFatal);
  }, [base]);
  useEffect(load, [load]);

  const requestPayout = async (e) => {
    e.preventDefault();
    const a = address.trim();
    if (!ADDRESS.test(a)) {
      setMessage({ error: true, text: 'Enter the address to pay: 0x and 40 hex digits' });
      return;
    }
    setBusy(true);
    setMessage(null);
    try {
      const { data } = await api('POST', `${base}/payout`, { address: a });
      const n = data.payouts?.length ?? 1;
      setMessage({ error: false, text: `Payout requested: ${n} payout${n === 1 ? '' : 's'}` });
      load();
    } catch (err) {
      if (err.status === 401) onFatal(err);
      else setMessage({ error: true, text: err.message });
    } finally {
      setBusy(false);
    }
  };

  return html`
    <section aria-labelledby="balances-title">
      <h2 id="balances-title">Cashback of <code>${sourceId}</code></h2>
      ${cashback === null
        ? html`<p class="note">Loading…</p>`
        : html`
            <p class="total">Estimated value: <strong id="estimated-usd">$${cashback.estimatedUsd}</strong>
              ${cashback.unpricedAssets?.length ? html` <span class="note">(not priced: ${cashback.unpricedAssets.join(', ')})</span>` : null}</p>
            <table id="balances">
              <thead><tr><th>Chain</th><th>Asset</th><th class="num">Claimable</th><th class="num">Pending</th><th class="num">Paid</th></tr></thead>
              <tbody>
                ${cashback.balances.map(
                  (b) => html`<tr data-chain=${b.chainId} data-asset=${b.asset}>
                    <td>${b.chainId}</td><td>${b.asset}</td><td class="num">${b.amount}</td><td class="num">${b.pending}</td><td class="num">${b.paid}</td>
                  </tr>`,
                )}
              </tbody>
            </table>
            ${cashback.balances.length === 0 ? html`<p class="note">No cashback yet.</p>` : null}
          `}
      <form class="inline" onSubmit=${requestPayout} aria-labelledby="payout-title">
        <h3 id="payout-title" class="visually-hidden">Request a payout</h3>
        <label for="payout-address">Pay to</label>
        <input id="payout-address" type="text" placeholder="0x… your address" value=${address} onInput=${(e) => setAddress(e.currentTarget.value)} />
        <button type="submit" id="request-payout" disabled=${busy}>Request payout</button>
      </form>
      ${message ? html`<p id="payout-message" class=${message.error ? 'error' : 'ok'} role="status">${message.text}</p>` : null}
      <h2>Payouts</h2>
      ${payouts === null
        ? html`<p class="note">Loading…</p>`
        : payouts.length === 0
          ? html`<p class="note" id="no-payouts">No payouts yet.</p>`
          : html`<table id="payouts">
              <thead><tr><th>Payout</th><th>Chain</th><th>Asset</th><th class="num">Amount</th><th>To</th><th>Status</th><th>Transaction</th></tr></thead>
              <tbody>
                ${payouts.map(
                  (p) => html`<tr data-payout-id=${p.id} data-status=${p.status}>
                    <td><code title=${p.id}>${short(p.id, 8)}</code></td><td>${p.chainId}</td><td>${p.asset}</td><td class="num">${p.amount}</td>
                    <td><code title=${p.address}>${short(p.address)}</code></td><td><${Status} value=${p.status} /></td><td><code>${p.txHash ?? ''}</code></td>
                  </tr>`,
                )}
              </tbody>
            </table>`}
    </section>
  `;
}

function App() {
  const claims = claimsOf(token);
  const [fatal, setFatal] = useState(claims ? null : 'This page needs a dashboard link: ask your provider for a new one.');
  const onFatal = useCallback((err) => setFatal(err.status === 401 ? err.message : `Could not load the dashboard: ${err.message}`), []);
  const title = claims?.kind === 'source' ? 'Source dashboard' : 'Intents dashboard';
  return html`
    <header>
      <h1>${title}</h1>
      ${claims ? html`<span class="note">Link valid until ${new Date(claims.exp * 1000).toLocaleString()}</span>` : null}
    </header>
    <main>
      ${fatal
        ? html`<p class="error" id="fatal" role="alert">${fatal}</p>`
        : html`
            ${claims.kind === 'source' ? html`<${Source} sourceId=${claims.sourceId} onFatal=${onFatal} />` : null}
            <${Intents} onFatal=${onFatal} />
          `}
    </main>
  `;
}

const root = document.getElementById('app');
root.textContent = '';
render(html`<${App} />`, root);
