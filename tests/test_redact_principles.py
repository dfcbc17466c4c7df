"""Tests for the rules written by principle (wikimem.redaction.principles and the widened
position rules): each shape in a program, vendor or language no rule names, and the look-alikes
the same rule must leave alone."""

from __future__ import annotations

import pytest

from wikimem.redaction.placeholders import is_placeholder
from wikimem.redaction.principles import named_password, password_shaped
from wikimem.redaction.redact import redact

SECRETS = [
    # a short password flag of any program
    ("$ mytool run -p 'Sg4^hJ7&kL0;' --verbose", "Sg4^hJ7&kL0;"),
    ("$ tool -P 'Hq3!nZ8@vL5x' upload", "Hq3!nZ8@vL5x"),
    ("C:\\> signer.exe /p Gk8#vLq2!xR7 app.msi", "Gk8#vLq2!xR7"),
    (
        "$ releaser push -p qv7nd03kx9bz2mw8rt4ya61hc5je0lpu --yes",
        "qv7nd03kx9bz2mw8rt4ya61hc5je0lpu",
    ),
    # a flag whose name says secret, in any program; a `user:` before the value dropped
    ("$ relayd --upstream-auth svc:Lq.Zt!wRmPcXvBn", "Lq.Zt!wRmPcXvBn"),
    ("$ flasher --auth=pQwErTyUiOpZ -f fw.bin", "pQwErTyUiOpZ"),
    ("$ packer -storepass -Wq2Er5Ty8Ui -alias up", "-Wq2Er5Ty8Ui"),
    # a secret's name, its value in a child `value:` entry
    ("registry:\n  password:\n    value: Lk9!jH6#gF3d", "Lk9!jH6#gF3d"),
    ('vars:\n  SMTP_PASSWORD:\n    description: mail\n    value: "Rt5Yh8Uj2Ik"', "Rt5Yh8Uj2Ik"),
    # an element named by an attribute
    ('<property name="db.password">Hn6Jm3Kl9Po</property>', "Hn6Jm3Kl9Po"),
    # user:password@host with no scheme, and a table's row
    ("svc:Hn6Jm3Kl9Po@10.0.0.5:5432/db", "Hn6Jm3Kl9Po"),
    ("peer => 7001:QwErTyUiOpAsDfGh@sip.acme.lan/7001", "QwErTyUiOpAsDfGh"),
    ("| api_token | Zx9Yw8Vu7Ts6Rq5Po4Nm |", "Zx9Yw8Vu7Ts6Rq5Po4Nm"),
    # a call's argument naming the slot, then its literal; a subscript; a setter's last literal
    ('curl_setopt($ch, CURLOPT_USERPWD, "svc:Zq8w!2Lm4Nx7");', "Zq8w!2Lm4Nx7"),
    ('ldap_set_option($c, LDAP_OPT_PASSWORD, "Zq8w!2Lm4Nx7")', "Zq8w!2Lm4Nx7"),
    ('opts.add(Option.PASSWORD, "Zq8w!2Lm4Nx7")', "Zq8w!2Lm4Nx7"),
    ('$ENV{DB_PASSWORD} = "Zq8w!2Lm4Nx7";', "Zq8w!2Lm4Nx7"),
    ('keyring.set_password("svc", "me", "Zq8w!2Lm4Nx7")', "Zq8w!2Lm4Nx7"),
    # the last argument of a subcommand making an account or a worker
    ("$ acme-worker register acme.lan:9000 builder-01 Hn6J!m3Kl9Po", "Hn6J!m3Kl9Po"),
    ("$ appctl user add ops@acme.io Lk8Jh5Gf2Ds", "Lk8Jh5Gf2Ds"),
    # the segment after a path word saying hook, in any vendor's URL
    (
        "WEBHOOK_URL=https://notify.opsfleet.net/webhook/7f3a9c2e4b6d8f0a1c3e5g7i9k",
        "7f3a9c2e4b6d8f0a1c3e5g7i9k",
    ),
    # a namespaced class built from one hex key
    (
        "$client = new \\Acme\\Client('f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4');",
        "f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4",
    ),
    # a secret's name inflected, in languages that inflect
    ("Hesla k serveru: Xk7Lm2Qp9Rz4", "Xk7Lm2Qp9Rz4"),
    ("Не забудь пароля Xk7Lm2Qp9Rz4", "Xk7Lm2Qp9Rz4"),
    ("Значение ключа API: Xk7Lm2Qp9Rz4", "Xk7Lm2Qp9Rz4"),
    ("A jelszava: Xk7Lm2Qp9Rz4", "Xk7Lm2Qp9Rz4"),
    ("Κωδικού πρόσβασης: Xk7Lm2Qp9Rz4", "Xk7Lm2Qp9Rz4"),
    ("Паролата е Xk7Lm2Qp9Rz4", "Xk7Lm2Qp9Rz4"),
    ("Parolamız Xk7Lm2Qp9Rz4", "Xk7Lm2Qp9Rz4"),
    ("Tunnussana: Xk7Lm2Qp9Rz4", "Xk7Lm2Qp9Rz4"),
]

LOOK_ALIKES = [
    ("$ docker run -p 8080:80 nginx", "8080:80"),
    ("$ ssh -p 2222 deploy@10.0.0.4", "2222"),
    ("$ mkdir -p build/Release2024", "build/Release2024"),
    ("$ grep -P '\\d+[A-Z]x9!' log.txt", "\\d+[A-Z]x9!"),
    ("$ docker compose -p myApp2Prod3 up", "myApp2Prod3"),
    ("$ pytest -k TestAuth2Flow", "TestAuth2Flow"),
    ("$ git add src/Main2.java", "src/Main2.java"),
    ("$ kubectl create ns Team2Alpha", "Team2Alpha"),
    ("$ docker buildx create --name Builder2x --use", "Builder2x"),
    ("$ x --secret-key-ref db2-secret", "db2-secret"),
    ("$ x --token-file ~/.config/t2", "~/.config/t2"),
    ("$ x --auth-type Basic2Auth", "Basic2Auth"),
    ("$ x --key-alias release2Key", "release2Key"),
    ('<property name="db.username">admin2</property>', "admin2"),
    (
        '<entry key="tokenEndpoint">https://auth.acme.io/oauth/token</entry>',
        "https://auth.acme.io/oauth/token",
    ),
    ("| password | string | required |", "string"),
    (
        "| secret_id | 5f3c8a1e-0d2b-4c7e-9a61-2b8d4e7f1c90 |",
        "5f3c8a1e-0d2b-4c7e-9a61-2b8d4e7f1c90",
    ),
    ("commit:9fceb02d0ae598e95dc970b7@github.com", "9fceb02d0ae598e95dc970b7"),
    ("mailto:support2024@acme.io", "support2024"),
    ("contact: ops:release2024@acme.io", "release2024"),
    ("registry:\n  password:\n    value: ${REGISTRY_PASSWORD}", "${REGISTRY_PASSWORD}"),
    ("$ create user Alice2 with role admin", "Alice2"),
    ("API anahtarı: Xk7Lm2", "Xk7Lm2"),
    ("Sandbox: Xk7Lm2Qp9Rz4", "Xk7Lm2Qp9Rz4"),
    ('t(Messages.PASSWORD_HINT, "min8Chars")', "min8Chars"),
    ('form.add(PASSWORD_FIELD, "Password")', "Password"),
    ('m.put(SECRET_NAME, "prod-db-secret2")', "prod-db-secret2"),
    ('opts.add(Option.PASSWORD_FILE, "/run/secrets/pw")', "/run/secrets/pw"),
    ('$ENV{HOME} = "/home/app2";', "/home/app2"),
    ('stash[some_str_key] = "value"', "value"),
    ('token_type: Literal["Bearer"] = "Bearer"', "Bearer"),
    ('OptionalLStrip(TOKEN_DATA, "#bygroup")', "#bygroup"),
    ('keyring.set_password("svc", "me", getpass())', "getpass()"),
    ("        self._client_key = keyfile", "keyfile"),
]


@pytest.mark.parametrize(("text", "secret"), SECRETS)
def test_a_secret_in_a_shape_no_tool_rule_names_goes(text: str, secret: str) -> None:
    redacted, kinds = redact(text)
    assert secret not in redacted and kinds, redacted


@pytest.mark.parametrize(("text", "value"), LOOK_ALIKES)
def test_the_same_position_holding_no_secret_stays(text: str, value: str) -> None:
    redacted, kinds = redact(text)
    assert redacted == text and kinds == [], redacted
    assert value in redacted


@pytest.mark.parametrize(
    ("value", "shaped"),
    [
        ("AHrf9ed_v6^s", True),
        ("nMmaPGDK2GHmdQRZ8FDEzv", True),
        ("release2024", False),
        ("myApp2Prod3", False),
        ("v1.25.3-alpine", False),
        ("ops@acme.io", False),
        ("$DB_PASSWORD", False),
        ("config2.yaml", False),
    ],
)
def test_password_shape_tells_a_chosen_password_from_a_name(value: str, shaped: bool) -> None:
    assert password_shaped(value) is shaped


def test_a_user_before_a_flag_value_stays() -> None:
    assert redact("$ xh -a deploy:Mk4!vR9qZt2w get https://api.acme.io")[0] == (
        "$ xh -a deploy:[REDACTED:cli-password] get https://api.acme.io"
    )


def test_a_name_saying_password_lets_a_password_without_digits_go() -> None:
    assert named_password("yxOkMYhnhxHy") and named_password("aOqY.YUu!uCvtnXFIa")
    assert not password_shaped("yxOkMYhnhxHy")
    assert not named_password("Basic") and not named_password("~/.config/t2")


@pytest.mark.parametrize(
    "value",
    [
        "ваш_пароль",
        "пароль",
        "ваш_ключ",
        "密码",
        "パスワード",
        "введите_ключ",
        "你的密码",
        "在此填写",
        "あなたのパスワード",
        "ここに入力",
        "여기에_입력",
        "ihr-passwort-hier",
        "votre_mot_de_passe",
        "sua_senha_aqui",
        "jouw_wachtwoord",
        "tu_contraseña",
    ],
)
def test_a_stand_in_is_known_by_what_it_says_in_any_language(value: str) -> None:
    assert is_placeholder(value)
    redacted, kinds = redact(f"password: {value}")
    assert value in redacted and kinds == [], redacted


@pytest.mark.parametrize("value", ["солнышко", "красивыйдом", "合言葉さくら"])
def test_a_password_of_plain_words_in_another_script_still_goes(value: str) -> None:
    assert not is_placeholder(value)
    redacted, _ = redact(f"password: {value}")
    assert value not in redacted, redacted


KLAVIYO_LIKE = "pk_" + "a1b7e93c0d54f28b" + "6e1a9c3d7f05b2e8e4"
STRIPE_PUBLISHABLE = "pk_live_" + "51Hx" * 6


def test_a_bare_pk_prefix_is_not_public_but_a_publishable_one_is() -> None:
    # `pk_` is Klaviyo's private API key; Stripe's, Clerk's, Paystack's `pk_live_`/`pk_test_`
    # are made for the browser
    mixed = "pk_" + "Zq8wE2rT7yU1iO5p" + "Lm4NxCvBh7KdA9sD"
    for text in (
        f'const kl = new Klaviyo("{KLAVIYO_LIKE}")',
        f"Client('acme', '{KLAVIYO_LIKE}')",
        f"sdk.init('{mixed}')",
    ):
        assert KLAVIYO_LIKE not in redact(text)[0] and mixed not in redact(text)[0], text
    for text in (
        f"const stripe = Stripe('{STRIPE_PUBLISHABLE}')",
        f"STRIPE_PUBLISHABLE_KEY={STRIPE_PUBLISHABLE}",
        f"sdk.init('pk_live_{mixed[3:]}')",
    ):
        assert redact(text) == (text, []), text


def test_a_client_key_name_alone_does_not_make_a_generated_key_public() -> None:
    key = "Zq8wE2rT7yU1iO5pLm4NxCvBh7Kd"
    for text in (f"CLIENT_KEY={key}", f"mqtt:\n  client_key: {key}", f'clientKey = "{key}"'):
        assert key not in redact(text)[0], text
    # a name saying the key ships to a browser, or a value saying it is a client's, stays
    for text in (
        f"VITE_CLIENT_KEY={key}",
        f"NEXT_PUBLIC_CLIENT_KEY={key}",
        f'<div data-client-key="{key}"></div>',
        "STATSIG_CLIENT_KEY=client-" + key,
        "client_key: ptlc_",
    ):
        assert redact(text) == (text, []), text


def test_an_encrypted_envelope_stays_and_the_key_that_opens_it_goes() -> None:
    # dotenvx encrypts each value to the public key beside it and ejson to its own; the
    # ciphertext is safe to commit, as both document. The private key is what must go.
    ciphertext = (
        "encrypted:BDqDBibm4wsYqMpCjTQ6BsDHmMadg9K3dAt+Z9HPMfLEIRVz50hmLXPXRuDBXaJi/LwWYEVUNiq0"
        "HISrslzQPaoyS8Lotg3gFWJTsNCdOWnqpjF2xNUX2RQiP05kAbEXM6MWVjDr"
    )
    private = "DOTENV_PRIVATE_KEY=" + "9c1f" * 16
    text, kinds = redact(f'HELLO="{ciphertext}"\n{private}')
    assert ciphertext in text and "9c1f9c1f" not in text and kinds, text
    ejson = '"secret": "EJ[1:Cb1AY94Dl76xwHHrnJyh+Y+fAeovijPlFQZXSAuvZBc=:oCGxX4n3d:KEXfx3VdBeH9]"'
    assert redact(ejson) == (ejson, []), redact(ejson)


def test_a_name_found_further_on_hides_no_other_name_before_it() -> None:
    text = "Hasło do konta admina: Qa3-AtsOtiZ~E8d\nand the password is Zq8w!2Lm4Nx7"
    redacted, _ = redact(text)
    assert "Qa3-AtsOtiZ~E8d" not in redacted and "Zq8w!2Lm4Nx7" not in redacted, redacted


def test_base64_of_a_json_object_or_a_yaml_binary_is_read_decoded() -> None:
    import base64

    password = "Zq8w!2Lm4Nx7"
    blob = base64.b64encode(('{"password": "' + password + '"}').encode()).decode()
    tagged = base64.b64encode(password.encode()).decode()
    for text, encoded in ((f"data: {blob}", blob), (f"password: !!binary {tagged}", tagged)):
        redacted, kinds = redact(text)
        assert encoded not in redacted and kinds, redacted
    plain = base64.b64encode(b'{"name": "app", "version": 2}').decode()
    gif = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"
    for text in (f"config: {plain}", f"logo: !!binary {gif}"):
        assert redact(text) == (text, []), text


# Principles fitted from batch P's misses and false positives, each in a shape beyond its row.
SECRETS_BY_PRINCIPLE = [
    # a name field and its value field with sibling fields between (`"type": "string",`)
    ('{"name":"API_TOKEN","description":"ci","value":"Zq8w2Lm4Nx7kPq"}', "Zq8w2Lm4Nx7kPq"),
    ("- key: SMTP_PASSWORD\n  type: string\n  value: Hn6Jm3Kl9Po", "Hn6Jm3Kl9Po"),
    # a secret's variable echoed: the next line is what it printed
    ("$ echo $API_TOKEN\nq8Zr2LmX9vKt4NwB7yHc3\n$ ls", "q8Zr2LmX9vKt4NwB7yHc3"),
    ("$ printenv DB_PASSWORD\nHunter2!horse", "Hunter2!horse"),
    # the value flag of a subcommand storing a secret, in any tool
    ("$ vault-cli secret put --path prod/db --value Lk8!Jh5Gf2Ds", "Lk8!Jh5Gf2Ds"),
    ("$ platform secrets set --name db --data 'Tq7#vLm2Pz9w'", "Tq7#vLm2Pz9w"),
    # a secret found once goes wherever it repeats nearby
    (
        "hooks:\n  url: https://hooks.acme.io/in?token=Zq8w2Lm4Nx7kPq9r\n"
        '  label: "Zq8w2Lm4Nx7kPq9r"',
        'label: "Zq8w2Lm4Nx7kPq9r"',
    ),
    # a value echoed to base64, and what it printed (checked to decode to it)
    ("$ echo -n 'Lk8!Jh5Gf2Ds' | base64\nTGs4IUpoNUdmMkRz", "TGs4IUpoNUdmMkRz"),
    # a log line saying a key or token was made, and its field
    (
        'level=info msg="generated api token" id=42 token=q8Zr2LmX9vKt4NwB7yHc3Pw5',
        "q8Zr2LmX9vKt4NwB7yHc3Pw5",
    ),
    # the segment right after a hook's path word, even of a digest's length
    ("POST https://ci.acme.io/hooks/" + "3f2c9a8b" * 5, "3f2c9a8b" * 5),
    # a keys file's line read out: fields, then the key
    (
        "$ cat ~/.config/tokens.txt\ngithub deploy q8Zr2LmX9vKt4NwB7yHc3Pw5Tz\n$ ls",
        "q8Zr2LmX9vKt4N",
    ),
    # a user:secret literal under a name saying auth or credentials
    ('val basicAuth = "svc:Zq8w!2Lm4Nx7"', "Zq8w!2Lm4Nx7"),
    ('creds := "ci:Hn6Jm3Kl9PoQ"', "Hn6Jm3Kl9PoQ"),
    # a call that connects, its arguments wrapped over lines
    (
        'c = DriverManager.getConnection(\n    url,\n    "app",\n    "Zq8w!2Lm4Nx7");',
        "Zq8w!2Lm4Nx7",
    ),
]

LOOK_ALIKES_BY_PRINCIPLE = [
    # a placeholder in capitals, in any script; a URL whose every part is one
    ("Authorization: Bearer CLAVE-PÚBLICA", "CLAVE-PÚBLICA"),
    ("mysql://USUARIO:CONTRASEÑA@SERVIDOR/db", "CONTRASEÑA"),
    # a word in brackets of any script, or a phrase saying the value is withheld
    ("API_KEY = （非公開）", "（非公開）"),
    ("Name           Value\nDB_PASSWORD    Hidden - write only", "Hidden - write only"),
    # a generic type after a secret's name is a declaration
    ("struct Hook {\n    secret: Option<&'static str>,\n}", "Option<"),
    ("api_token: Box<dyn Fn() -> String>", "Box<dyn"),
    # a JWT cut after its header
    ("sessions\n  laptop   2026-11-30   eyJhbGciOiJSUzI1NiIsImtpZCI6ImFiYyJ9.…", "eyJhbGci"),
    # an echo of a reference, or of a mask
    ("$ echo $API_TOKEN_FILE\n/run/secrets/t2", "/run/secrets/t2"),
    ("+ echo $DB_PASSWORD\n[MASKED]", "[MASKED]"),
    # a secret store's value read from a file
    ("$ tool secret add --name db --value @file.txt", "@file.txt"),
    ('{"name":"DB_HOST","type":"string","value":"db2.acme.io"}', "db2.acme.io"),
    ("$ echo -n 'admin' | base64\nYWRtaW4=", "YWRtaW4="),
    ('msg="created cache key" key=' + "9f86d081" * 8, "9f86d081"),
    ("https://github.com/acme/api/commit/" + "9a1c790c" * 5, "9a1c790c"),
    ("$ cat keys.md\nThe keys live in vault now.\n$ ls", "vault"),
    ('author = "jane:Zq8w!2Lm4Nx7"', "Zq8w!2Lm4Nx7"),
    ('auth_header = "Content-Type:application/json"', "application/json"),
    # a method acting on a record takes its id
    ("order = api.orders.cancel('Zq8wE2rT7yU1iO5pLm4NxCvBh7KdA9sDf3G')", "Zq8wE2rT7yU1"),
    # a client key by its documented public prefix; the debug keystore's published password
    ("const w = PaymentWidget('test_gck_Ovk5rk1EwkEbP0W43n07xlzm')", "test_gck_"),
    ("mp = MP('TEST-4e9a1c72-3b58-4d06-9f1e-b2c7a5d8e013')", "TEST-4e9a1c72"),
    ("$ keytool -list -keystore ~/.android/debug.keystore -storepass android", "android"),
]


@pytest.mark.parametrize(("text", "secret"), SECRETS_BY_PRINCIPLE)
def test_a_secret_by_a_principle_batch_p_lacked_goes(text: str, secret: str) -> None:
    redacted, kinds = redact(text)
    assert secret not in redacted and kinds, redacted


@pytest.mark.parametrize(("text", "value"), LOOK_ALIKES_BY_PRINCIPLE)
def test_a_look_alike_by_a_principle_batch_p_lacked_stays(text: str, value: str) -> None:
    assert redact(text) == (text, []), redact(text)
    assert value in text


def test_a_vendor_prefix_beside_a_public_one_still_goes() -> None:
    for text in (
        "TOSS_SECRET_KEY=live_sk_D5GePWvyJnrK0W0k6q8gLzN97Eoq",
        "MP_ACCESS_TOKEN=APP_USR-4622043066942466-729819-b0ac6d9b5a940c9b29065-963904106",
        'release {\n    storeFile file("release.jks")\n    storePassword "android"\n}',
    ):
        assert redact(text)[1], text


def test_capital_words_of_one_length_are_a_code_not_a_placeholder() -> None:
    assert is_placeholder("TOKEN-PÚBLICO") and is_placeholder("CLÉ_SECRÈTE")
    assert not is_placeholder("ABCD-EFGH-IJKL-MNOP")
    assert redact("postgres://ADMIN:HUNTERTWO@db.acme.io/db")[1] == ["url-credentials"]
