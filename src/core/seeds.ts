/**
 * Types every new workspace starts with (DESIGN: requirement_types and relationship_types are seeded).
 * They are per workspace, so a workspace's admins can add their own beside these.
 */
export const SEED_REQUIREMENT_TYPES: readonly { name: string; description: string }[] = [
  { name: "Functional", description: "What the system must do: a behaviour or function." },
  { name: "Non-Functional", description: "How well the system must do it: a quality attribute." },
  { name: "Interface", description: "How the system talks to users, other systems or hardware." },
  { name: "Performance", description: "Speed, throughput, capacity or resource limits." },
  { name: "Security", description: "Protection of data and access: authentication, authorization, privacy." },
  { name: "Usability", description: "Ease of use, accessibility and user experience." },
  {
    name: "Constraint",
    description: "A limit on the design or implementation (technology, regulation, budget).",
  },
];

export const SEED_RELATIONSHIP_TYPES: readonly { name: string; description: string }[] = [
  { name: "depends_on", description: "The source needs the target to be done first." },
  { name: "blocks", description: "The source prevents progress on the target until it is resolved." },
  { name: "relates_to", description: "The two are related without a stronger link." },
  { name: "conflicts_with", description: "The two cannot both be satisfied as written." },
  { name: "derives_from", description: "The source was derived from (refines) the target." },
];
