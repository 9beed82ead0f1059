import { api } from '../api.js';
import { append, h } from '../dom.js';
import { notice } from '../feedback.js';
import { field, onSubmit } from '../forms.js';
import { pageHeading } from '../layout.js';
import { href } from '../router.js';
import { sessionState, setFlash, setSessionState } from '../session.js';

/** The password rule of src/domain/passwords.ts, said before the user types (the API checks it again). */
const PASSWORD_MIN_LENGTH = 10;

export async function signUpPage({ container, navigate }) {
  const firstAccount = sessionState().signup === 'first-account';
  pageHeading(container, firstAccount ? 'Create the operator account' : 'Create your account');
  if (sessionState().signup === 'closed') {
    append(
      container,
      notice('info', h('p', {}, 'Sign-up is closed on this instance. Ask its operator for an account.')),
      h('p', {}, h('a', { href: href('/signin') }, 'Sign in')),
    );
    return;
  }
  const problems = h('div');
  const form = h(
    'form',
    { class: 'card narrow', novalidate: true },
    firstAccount
      ? h(
          'p',
          {},
          "This instance has no account yet. The first one is yours, the operator's; after it, sign-up closes and further accounts come from ",
          h('code', {}, 'clarion accounts create'),
          '. It starts on the Free plan (250 notifications a month): ',
          h('code', {}, 'clarion accounts set-plan'),
          ' raises it.',
        )
      : h('p', {}, 'A new account starts on the Free plan: 250 notifications a month, no card needed.'),
    problems,
    field({ label: 'Email', input: { name: 'email', type: 'email', autocomplete: 'username', required: true } }),
    field({
      label: 'Password',
      hint: `At least ${PASSWORD_MIN_LENGTH} characters. A few unrelated words make a strong one.`,
      input: {
        name: 'password',
        type: 'password',
        autocomplete: 'new-password',
        required: true,
        minlength: String(PASSWORD_MIN_LENGTH),
        maxlength: '200',
      },
    }),
    field({
      label: 'Account name',
      hint: 'Your company or project. Defaults to your email.',
      input: { name: 'accountName', autocomplete: 'organization', maxlength: '100' },
    }),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Create account')),
  );
  onSubmit(form, problems, async (data) => {
    const values = Object.fromEntries(data);
    const body = { email: values.email, password: values.password };
    if (String(values.accountName).trim()) body.accountName = String(values.accountName).trim();
    setSessionState(await api.post('/api/v1/auth/signup', body));
    setFlash('success', 'Your account is ready. Start by creating a channel.');
    navigate('/channels');
  });
  append(
    container,
    form,
    firstAccount ? null : h('p', {}, 'Already have an account? ', h('a', { href: href('/signin') }, 'Sign in')),
  );
}
