import { api } from '../api.js';
import { append, h } from '../dom.js';

import { field, onSubmit } from '../forms.js';
import { pageHeading } from '../layout.js';
import { href } from '../router.js';
import { sessionState, setSessionState } from '../session.js';

export async function signInPage({ container, navigate }) {
  pageHeading(container, 'Sign in');
  const problems = h('div');
  const form = h(
    'form',
    { class: 'card narrow', novalidate: true },
    problems,
    field({ label: 'Email', input: { name: 'email', type: 'email', autocomplete: 'username', required: true } }),
    field({
      label: 'Password',
      input: { name: 'password', type: 'password', autocomplete: 'current-password', required: true },
    }),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Sign in')),
  );
  onSubmit(
    form,
    problems,
    async (data) => {
      const values = Object.fromEntries(data);
      setSessionState(await api.post('/api/v1/auth/signin', { email: values.email, password: values.password }));
      navigate('/channels');
    },
    {
      onProblem: () => {
        form.elements.namedItem('password').value = '';
      },
    },
  );
  append(
    container,
    form,
    {
      open: () =>
        h(
          'p',
          {},
          'New here? ',
          h('a', { href: href('/signup') }, 'Create an account'),
          ' — the Free plan has 250 notifications a month, no card needed.',
        ),
      'first-account': () =>
        h(
          'p',
          {},
          'This instance has no account yet: ',
          h('a', { href: href('/signup') }, 'create the operator account'),
          '.',
        ),
      closed: () => h('p', { class: 'muted' }, 'Sign-up is closed on this instance: ask its operator for an account.'),
    }[sessionState().signup](),
  );
}
