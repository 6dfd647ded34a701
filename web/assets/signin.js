// The page a login address answers with: keeps the session it carries in this
// origin's storage (see session.js) and goes to the games, replacing the login
// address in the tab's history.
import { keep } from './session.js';

const meta = (name) => {
  const m = document.querySelector(`meta[name="${name}"]`);
  return m ? m.content : '';
};
keep(meta('sealed-session'), meta('sealed-again'));
location.replace('/#/');
