/// Every command file's contribution, in `help` order. A feature adds its file and one line here.
enum AllCommands {
    static let registry = CommandRegistry(
        CoreCommands.commands
            + SessionCommands.commands
            + SyncCommands.commands
            + BackgroundCommands.commands
            + FacilitiesCommands.commands
            + InspectionCommands.commands
            + PhotoCommands.commands
            + IssueCommands.commands
            + NotificationCommands.commands
            + ScheduleCommands.commands
            + FollowUpCommands.commands
            + OfflineToolCommands.commands
            + ExportCommands.commands
    )
}
