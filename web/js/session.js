import { api, setCsrfToken } from './api.js';

// The browser's dashboard session as GET /api/v1/auth/session describes it: {signup, session: null | {...}}.
// The session token itself is in an HttpOnly cookie this code cannot read; only the CSRF token is kept here.
let state = { signup: 'closed', session: null };

export function sessionState() {
  return state;
}

export function currentSession() {
  return state.session;
}

export function setSessionState(next) {
  state = next;
  setCsrfToken(next.session ? next.session.csrfToken : null);
}

export async function loadSession() {
  setSessionState(await api.get('/api/v1/auth/session'));
  return state;
}

/** A message to show on the next page (e.g. "You are signed out."), consumed once. */
let flash = null;
export function setFlash(kind, message) {
  flash = { kind, message };
}
export function takeFlash() {
  const value = flash;
  flash = null;
  return value;
}
