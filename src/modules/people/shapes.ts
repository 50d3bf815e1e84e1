import { Type } from "@sinclair/typebox";
import { SafeText } from "../../platform/http/shapes.js";

const Role = Type.Union([Type.Literal("owner"), Type.Literal("member")]);

export const SignInSchema = Type.Object(
  {
    email: SafeText({ minLength: 1, maxLength: 320 }),
    password: SafeText({ minLength: 1, maxLength: 1024 }),
    organizationId: Type.Optional(SafeText({ maxLength: 256, description: "The organization to start in; the first one when absent." })),
  },
  { title: "SignIn" },
);

export const SwitchOrganizationSchema = Type.Object({ organizationId: SafeText({ minLength: 1, maxLength: 256 }) }, { title: "SwitchOrganization" });

export const AcceptInvitationSchema = Type.Object(
  {
    token: SafeText({ minLength: 1, maxLength: 200 }),
    email: Type.Optional(SafeText({ maxLength: 320, description: "Only on the first-start setup link, which names no address: the new owner's address." })),
    password: Type.Optional(
      SafeText({ maxLength: 1024, description: "The new account's password, when the address has no account yet. An existing account accepts with its own session instead." }),
    ),
  },
  { title: "AcceptInvitation" },
);

export const InvitationQuery = Type.Object({ token: SafeText({ minLength: 1, maxLength: 200 }) });

export const InvitationViewSchema = Type.Object(
  {
    organizationName: Type.String(),
    email: Type.Union([Type.String(), Type.Null()], { description: "The invited address; null on the first-start setup link." }),
    role: Role,
    expiresAt: Type.String(),
    accountExists: Type.Boolean({ description: "True when the address has an account: accept it signed in as that account." }),
    signedInAs: Type.Union([Type.String(), Type.Null()], { description: "The address of the session the request carries, if any." }),
  },
  { title: "Invitation" },
);

export const SessionViewSchema = Type.Object(
  {
    user: Type.Object({ id: Type.String(), email: Type.String() }),
    organizations: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), role: Role })),
    currentOrganizationId: Type.Union([Type.String(), Type.Null()]),
    role: Type.Union([Role, Type.Null()]),
    scope: Type.Union([Type.Literal("organization"), Type.Literal("team"), Type.Null()]),
    teamIds: Type.Array(Type.String()),
    csrfToken: Type.String({ description: "Send it in the x-csrf-token header with every change made with the session cookie." }),
    expiresAt: Type.String(),
  },
  { title: "Session" },
);

export const MemberSchema = Type.Object(
  {
    email: Type.String(),
    role: Role,
    status: Type.Union([Type.Literal("active"), Type.Literal("invited")], { description: "`invited` until the person accepts the invitation." }),
    userId: Type.Union([Type.String(), Type.Null()], { description: "The account's id; null while invited." }),
    createdAt: Type.String(),
    expiresAt: Type.Union([Type.String(), Type.Null()], { description: "When a pending invitation stops working." }),
    invitationUrl: Type.Optional(Type.String({ description: "One-time invitation link (24 h) for the person; only in the response that made it." })),
  },
  { title: "Member" },
);

export const MemberInputSchema = Type.Object({ role: Role }, { title: "MemberInput" });

export const EmailParams = Type.Object({ email: SafeText({ minLength: 3, maxLength: 320 }) });
