import { Type } from "@sinclair/typebox";

export const SignInOptionsSchema = Type.Object(
  {
    sso: Type.Union([Type.Object({ name: Type.String(), url: Type.String({ description: "Send the browser here to sign in with the provider." }) }), Type.Null()]),
  },
  { title: "SignInOptions" },
);

export const SignInSettingsSchema = Type.Object(
  {
    passwordSignIn: Type.Boolean({ description: "Whether people may sign in to this organization with a password." }),
    ssoConfigured: Type.Boolean({ description: "Whether the server has an OpenID provider (OIDC_ISSUER)." }),
    ownersSignedInWithSso: Type.Integer({ description: "Owners who have signed in through the provider; passwords can be turned off only when there is one." }),
  },
  { title: "SignInSettings" },
);
