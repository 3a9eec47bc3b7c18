// The checkout dialog's browser side: the test gateway's card fields and Stripe's Payment Element.
//
// An ES module served at /checkout.js; storefront/state/checkout.py runs one of its functions per
// step through rx.call_script (`checkout_call`), passing what the server knows as arguments, and
// gets back what the function resolves to. Card fields never go to the Reflex state: they are read
// here and sent straight to the payment API, or typed into Stripe's own fields and go to Stripe.

// The card inputs carry only a data-card attribute (no name, no id), so Reflex's form submission
// never collects them; these functions read them in the browser instead.
const readCard = (cardFields) => Object.fromEntries(
  cardFields.map((key) => [key, document.querySelector(`[data-card="${key}"]`)?.value ?? '']),
);

// The tab keeps the token of the order its dialog placed in session storage (under tokenKey).
const keptToken = (tokenKey) => window.sessionStorage.getItem(tokenKey) || '';
const keepToken = (tokenKey, token) => {
  if (token) window.sessionStorage.setItem(tokenKey, token);
};

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The test gateway's card fields format as they are typed: the number in groups of four, the expiry
// as MM/YY ('1229' -> '12/29'). One listener on the document (installed once per page) serves the
// fields whenever the dialog mounts them; deleting is left alone so a slash never comes back.
// Installing also formats what is already typed: a shopper (or a test) may type before this module
// has been imported, and no later input event would come to format it.
const formatCardField = (field) => {
  const kind = field && field.dataset ? field.dataset.card : '';
  if (kind !== 'cardNumber' && kind !== 'expiryDate') return;
  const digits = field.value.replace(/\D/g, '');
  const formatted = kind === 'cardNumber'
    ? digits.slice(0, 19).replace(/(\d{4})(?=\d)/g, '$1 ')
    : (digits.length > 2 ? digits.slice(0, 2) + '/' + digits.slice(2, 4) : digits);
  if (formatted !== field.value) field.value = formatted;
};

export function formatCardFields() {
  document.querySelectorAll('[data-card="cardNumber"], [data-card="expiryDate"]').forEach(formatCardField);
  if (window.__cardFormat) return;
  window.__cardFormat = true;
  document.addEventListener('input', (event) => {
    if ((event.inputType || '').startsWith('delete')) return;
    formatCardField(event.target);
  });
}

// Asks the server to check the card fields' rules without charging or keeping anything.
export async function checkCard(tokenKey, cardFields) {
  const cardData = readCard(cardFields);
  const orderToken = keptToken(tokenKey);
  try {
    const r = await fetch('/api/payments/validate-card', {
      method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({cardData}),
    });
    const body = await r.json();
    return {ok: r.ok, fieldErrors: body.fieldErrors || {}, error: body.error || '', orderToken};
  } catch (e) {
    return {ok: false, fieldErrors: {}, orderToken};
  }
}

// Posts the card fields straight from the page to the payment API, with the order's token as the
// tab keeps it (after keeping newToken when the order was just placed); returns the response.
export async function payByCard(tokenKey, cardFields, orderNumber, newToken, paymentId) {
  keepToken(tokenKey, newToken);
  const cardData = readCard(cardFields);
  const body = {paymentId, shopId: 'storefront', paymentMethod: 'card', cardData};
  const headers = {'Content-Type': 'application/json', 'Idempotency-Key': paymentId, 'X-Order-Token': keptToken(tokenKey)};
  try {
    const address = '/api/printify/orders/' + encodeURIComponent(orderNumber) + '/process-payment';
    const r = await fetch(address, {method: 'POST', headers, body: JSON.stringify(body)});
    let data = {};
    try { data = await r.json(); } catch (e) { /* a body that is not JSON: the status says enough */ }
    return {ok: r.ok, status: r.status, body: data};
  } catch (e) {
    return {ok: false, status: 0, body: {}};
  }
}

// Loads Stripe.js from its own address (never bundled) and mounts the Payment Element in the node
// with id elementId once the dialog has drawn it.
export async function mountStripe(publishableKey, jsUrl, amount, elementId) {
  try {
    if (!window.Stripe) {
      await new Promise((resolve, reject) => {
        let tag = document.querySelector('script[data-stripe-js]');
        if (!tag) {
          tag = document.createElement('script');
          tag.src = jsUrl;
          tag.dataset.stripeJs = '1';
          document.head.appendChild(tag);
        }
        tag.addEventListener('load', resolve);
        tag.addEventListener('error', () => reject(new Error('Stripe.js could not be loaded')));
        if (window.Stripe) resolve();
      });
    }
    let node = null;
    for (let i = 0; i < 100 && !(node = document.getElementById(elementId)); i++) await wait(50);
    if (!node) return {ok: false};
    if (!window.__storefrontStripe || window.__storefrontStripeKey !== publishableKey) {
      window.__storefrontStripe = window.Stripe(publishableKey);
      window.__storefrontStripeKey = publishableKey;
    }
    const elements = window.__storefrontStripe.elements({mode: 'payment', amount, currency: 'usd'});
    elements.create('payment').mount(node);
    window.__storefrontElements = elements;
    return {ok: true};
  } catch (e) {
    return {ok: false};
  }
}

// Checks the Payment Element's fields in the browser (Stripe's own messages) before the order is placed.
export async function submitStripe(tokenKey) {
  const elements = window.__storefrontElements, orderToken = keptToken(tokenKey);
  if (!elements) return {ok: false, error: '', orderToken};
  try {
    const result = await elements.submit();
    return result && result.error ? {ok: false, error: result.error.message || '', orderToken} : {ok: true, orderToken};
  } catch (e) {
    return {ok: false, error: '', orderToken};
  }
}

// Confirms the order's PaymentIntent with Stripe from the page; the card goes to Stripe only.
// Hands back the order's token as the tab keeps it (after keeping newToken).
// A method that leaves the page (3-D Secure, a bank's page) comes back to returnPath, the order's own page.
export async function confirmStripe(tokenKey, clientSecret, newToken, returnPath) {
  keepToken(tokenKey, newToken);
  const stripe = window.__storefrontStripe, elements = window.__storefrontElements, orderToken = keptToken(tokenKey);
  if (!stripe || !elements) return {ok: false, error: '', orderToken};
  try {
    const result = await stripe.confirmPayment({
      elements, clientSecret,
      confirmParams: {return_url: window.location.origin + (returnPath || '/order-status')}, redirect: 'if_required',
    });
    if (result.error) return {ok: false, error: result.error.message || '', type: result.error.type || '', orderToken};
    return {ok: true, status: (result.paymentIntent && result.paymentIntent.status) || '', orderToken};
  } catch (e) {
    return {ok: false, error: '', orderToken};
  }
}
