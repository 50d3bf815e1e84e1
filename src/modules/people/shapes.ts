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

export const SetupSchema = Type.Object(
  {
    token: SafeText({ minLength: 1, maxLength: 200 }),
    email: Type.Optional(SafeText({ maxLength: 320, description: "Required when the link names no account (the first-start link)." })),
    password: SafeText({ minLength: 1, maxLength: 1024 }),
  },
  { title: "Setup" },
);

export const SetupQuery = Type.Object({ token: SafeText({ minLength: 1, maxLength: 200 }) });

export const SetupViewSchema = Type.Object(
  { organizationName: Type.String(), email: Type.Union([Type.String(), Type.Null()]), role: Role, expiresAt: Type.String() },
  { title: "SetupLink" },
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
    userId: Type.String(),
    role: Role,
    createdAt: Type.String(),
    passwordSet: Type.Boolean(),
    setupUrl: Type.Optional(Type.String({ description: "One-time link for the person to choose a password; only in the response that made it." })),
  },
  { title: "Member" },
);

export const MemberInputSchema = Type.Object({ role: Role }, { title: "MemberInput" });

export const EmailParams = Type.Object({ email: SafeText({ minLength: 3, maxLength: 320 }) });
